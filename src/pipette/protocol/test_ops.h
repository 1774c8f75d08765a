// Not a protocol op: with PIPETTE_WORKER_TEST_OPS=1 in its environment, a worker (C++:
// workers/common's Dispatcher; Python: pipette_worker.Worker) also answers `test_throw`, whose
// handler throws, so that the conformance suite can check that a handler's exception is
// answered ok:false saying what threw (the controller names the op) and that the worker stays
// usable. protocol::Ops() and hello leave it out; without the variable it is an unknown op.
#pragma once

namespace pipette::protocol {

inline constexpr char kTestOpsEnv[] = "PIPETTE_WORKER_TEST_OPS";
inline constexpr char kTestThrowOp[] = "test_throw";

}  // namespace pipette::protocol
