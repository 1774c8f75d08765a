// A device-side program started by a remote device (device/remote_device.h) dies with its session:
// with PIPETTE_EXIT_WITH_PARENT set (to the pid of the parent the launch meant), the kernel kills
// it when its parent ends, and it exits at once when that parent is gone already. Header-only so
// that programs without the protocol (pipette-probe) use it too.
#pragma once

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

namespace pipette::worker_common {

inline void ExitWithParentWhenAsked() {
  const char* value = std::getenv("PIPETTE_EXIT_WITH_PARENT");
  if (value == nullptr) return;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The pid of the parent the launch meant (the shell's $PPID): another parent now means that
  // one ended before the request took hold.
  const long meant = std::strtol(value, nullptr, 10);
  if (meant > 1 && getppid() != static_cast<pid_t>(meant)) _exit(1);
}

}  // namespace pipette::worker_common
