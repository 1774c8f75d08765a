// Running a program to its end (the ONNX converter, `python -m pipette_convert`; ssh's commands
// on a remote device): argv, extra environment, a file for standard input and a time limit in;
// exit code, standard output and standard error out. Behind an interface so that tests run a
// fake (convert/maker_test.cc, device/ssh_device_test.cc).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "pipette/util/result.h"

namespace pipette {

struct Command {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env{};  // set on top of this process's
  double timeout_s = 3600;
  std::string stdin_path{};  // "" : /dev/null
  // With a value above 0: the program is killed once its standard output and error together
  // pass this many bytes (a sandboxed program's output, workload/task/sandbox.h).
  size_t max_output_bytes = 0;
  // Every descriptor above standard error closed in the program (one this process or its parent
  // left open without close-on-exec is not passed on: a sandboxed program's).
  bool close_other_fds = false;
  // Each line the program writes to standard error, as it comes (progress lines).
  std::function<void(const std::string&)> on_stderr_line{};
};

struct CommandResult {
  int exit_code = 0;  // the program's; -1 when a signal ended it or it ran out of time
  bool timed_out = false;
  std::string out;
  std::string err;
  bool output_limited = false;  // killed for passing max_output_bytes
  int signal = 0;               // the signal that ended it, if one did
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // An error only when the program could not be started; its own failure is in the result.
  virtual Result<CommandResult> Run(const Command& command) = 0;
};

// The path of the executable `name` on PATH (a name with a '/' is returned as it is); an error
// naming it when there is none.
Result<std::string> FindOnPath(const std::string& name);

// The real one: posix_spawn with pipes on standard output and error; killed past its time.
class ProcessCommandRunner : public CommandRunner {
 public:
  Result<CommandResult> Run(const Command& command) override;
};

}  // namespace pipette
