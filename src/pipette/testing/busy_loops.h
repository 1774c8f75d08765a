// Busy loops for tests of the CPU-busy readiness gate: one process per online CPU, each spinning
// until Stop() or the object goes away (killed and reaped either way, passed or failed).
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace pipette::testing {

class BusyLoops {
 public:
  // As many loops as online CPUs: every CPU busy.
  BusyLoops() {
    const long cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
    for (long i = 0; i < cpus; ++i) {
      const pid_t pid = fork();
      if (pid < 0) {
        Stop();
        throw std::runtime_error("fork failed");
      }
      if (pid == 0) {
        volatile uint64_t x = 0;
        while (true) {
          const uint64_t v = x;
          x = v + 1;
        }
      }
      pids_.push_back(pid);
    }
  }
  ~BusyLoops() { Stop(); }
  BusyLoops(const BusyLoops&) = delete;
  BusyLoops& operator=(const BusyLoops&) = delete;

  void Stop() {
    for (pid_t p : pids_) kill(p, SIGKILL);
    for (pid_t p : pids_) waitpid(p, nullptr, 0);
    pids_.clear();
  }

 private:
  std::vector<pid_t> pids_;
};

}  // namespace pipette::testing
