#include "serve.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace pipette::worker_common {

std::FILE* TakeProtocolOutput() {
  const int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return nullptr;
  return fdopen(fd, "w");
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
    dispatcher.SampleFootprint();  // after the response: no request waits on it
  }
  return 0;
}

}  // namespace pipette::worker_common
