// The worker's main loop (docs/protocol.md "Framing"): one request line in, one response line
// (and any frames) out, until standard input ends or `shutdown` is answered.
#pragma once

#include <cstdio>
#include <istream>

#include "dispatcher.h"
#include "exit_with_parent.h"

namespace pipette::worker_common {

// Keeps standard output for protocol lines only: returns a private copy of it for the protocol
// and points file descriptor 1 at standard error, so that a stray print from a library cannot
// corrupt the stream. Null when that fails. Call before the runtime starts.
std::FILE* TakeProtocolOutput();

// ExitWithParentWhenAsked (exit_with_parent.h): with PIPETTE_EXIT_WITH_PARENT set (a remote
// device's launch), the worker is killed when its parent process ends (Linux:
// PR_SET_PDEATHSIG), and exits at once when its parent is no longer the pid the variable names:
// nothing is left running on a device whose link dropped.

// Answers every line of `in` on `out` (a trailing "\r" is ignored). Returns the exit status: 0
// at the end of input or after `shutdown`, 1 when `out` fails (the controller is gone).
int Serve(Dispatcher& dispatcher, std::istream& in, std::FILE* out);

}  // namespace pipette::worker_common
