// The sandbox that runs untrusted programs (docs/tasks.md "The sandbox"): a model-written
// program (HumanEval, MBPP) runs under bubblewrap with no network, a read-only system of /usr
// only, a private writable /tmp of bounded size, a clear environment, in its own user, PID, IPC
// and UTS namespaces, and with limits on CPU time, address space, processes, file size, output
// and wall-clock time. Nothing of the store, the experiment, the home folder or the controller's
// environment is in its view. The commands run through a CommandRunner (util/command.h), so the
// composition is tested with a fake and the containment with the real tools (sandbox_test.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipette/util/command.h"
#include "pipette/util/result.h"

namespace pipette::sandbox {

struct Limits {
  double wall_s = 10;                        // then the whole sandbox is killed
  int cpu_s = 10;                            // RLIMIT_CPU
  int64_t address_space = int64_t{1} << 30;  // RLIMIT_AS, bytes
  int processes = 32;                        // RLIMIT_NPROC, counted for the sandbox's own user
  int64_t file_bytes = int64_t{16} << 20;    // RLIMIT_FSIZE, and the size of its /tmp
  size_t output_bytes = size_t{1} << 20;     // standard output and error together
};

// How a program's run ended. `passed`: it exited 0, within every limit.
struct Verdict {
  bool passed = false;
  // "passed", "failed" (a non-zero exit), "timeout", "output_limit" or "signal"
  std::string outcome;
  int exit_code = -1;
  int signal = 0;
  std::string output;  // standard error, then output, at most kKeptOutput bytes of their end
  static constexpr size_t kKeptOutput = 2048;
};

// The tools, found once: bwrap, prlimit, setpriv (util-linux) and the Python that runs programs.
struct Tools {
  std::string bwrap, prlimit, setpriv, python;  // python: /usr/bin/python3, resolved
};
// The tools on PATH; an error (exit 2) names the one missing and the package that has it.
Result<Tools> FindTools();

class Sandbox {
 public:
  Sandbox(CommandRunner& runner, Tools tools, Limits limits)
      : runner_(runner), tools_(std::move(tools)), limits_(limits) {}

  // Runs `program` (Python source) in a fresh sandbox: it reads the program on standard input.
  // An error only when the sandbox could not be started; the program's own failure, whatever it
  // did, is a verdict.
  Result<Verdict> RunPython(const std::string& program);

  // A trivial program run once: an error, with bubblewrap's own message, when the sandbox
  // cannot run programs here (no user namespaces, say), so that no item is scored a failure for
  // the sandbox's sake.
  Status Check();

  // The command line of one run (the program comes on standard input).
  std::vector<std::string> Argv() const;

 private:
  CommandRunner& runner_;
  Tools tools_;
  Limits limits_;
};

}  // namespace pipette::sandbox
