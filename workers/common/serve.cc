#include "serve.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>

namespace pipette::worker_common {

std::FILE* TakeProtocolOutput() {
  const int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return nullptr;
  return fdopen(fd, "w");
}

void ExitWithParentWhenAsked() {
  if (std::getenv("PIPETTE_EXIT_WITH_PARENT") == nullptr) return;
  const pid_t parent = getppid();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the parent ended before the request took hold
}

int Serve(Dispatcher& dispatcher, std::istream& in, std::FILE* out) {
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const Dispatcher::Outcome outcome = dispatcher.Dispatch(line, out);
    if (!outcome.written) {
      std::fputs(outcome.response.c_str(), out);
      std::fputc('\n', out);
    }
    if (std::fflush(out) != 0) return 1;  // the controller is gone
    if (outcome.shutdown) break;
  }
  return 0;
}

}  // namespace pipette::worker_common
