// pipette-worker-llama: drives llama.cpp for the pipette controller. Reads one JSON request
// per line on standard input and answers one JSON line on standard output (docs/protocol.md).
#include <fcntl.h>
#include <llama.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "request_router.h"
#include "runtime_info.h"

namespace {

constexpr char kUsage[] =
    "usage: pipette-worker-llama [--verbose]\n"
    "       pipette-worker-llama --version | --help\n"
    "\n"
    "The llama.cpp worker of pipette. It reads requests (one JSON object per line) on standard\n"
    "input and writes one JSON response line per request on standard output, as specified in\n"
    "docs/protocol.md. llama.cpp's warnings and errors go to standard error.\n"
    "\n"
    "  --verbose   also pass llama.cpp's informational log lines to standard error\n"
    "  --version   print the worker's llama.cpp and llama-cpp-python versions and exit\n"
    "  --help      print this text and exit\n";

// Keeps standard output for protocol lines only: the protocol gets a private copy of the
// descriptor and file descriptor 1 is pointed at standard error, so that any stray print from
// a library cannot corrupt the stream.
FILE* TakeProtocolOutput() {
  const int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return nullptr;
  return fdopen(fd, "w");
}

}  // namespace

int main(int argc, char** argv) {
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      std::fputs(pipette::llama_worker::VersionText().c_str(), stdout);
      return 0;
    }
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (std::strcmp(argv[i], "--verbose") == 0) {
      verbose = true;
      continue;
    }
    std::fprintf(stderr, "pipette-worker-llama: unknown argument '%s'\n\n%s", argv[i], kUsage);
    return 2;
  }

  FILE* out = TakeProtocolOutput();
  if (out == nullptr) {
    std::perror("pipette-worker-llama: cannot set up standard output");
    return 1;
  }
  pipette::llama_worker::StartLlamaRuntime(verbose);

  int status = 0;
  {
    pipette::llama_worker::RequestRouter router;
    std::string line;
    while (std::getline(std::cin, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const auto outcome = router.Handle(line, out);
      if (!outcome.written) {
        std::fputs(outcome.response.c_str(), out);
        std::fputc('\n', out);
      }
      if (std::fflush(out) != 0) {
        status = 1;  // the controller is gone
        break;
      }
      if (outcome.shutdown) break;
    }
  }  // frees the context and the model
  llama_backend_free();
  std::fclose(out);
  return status;
}
