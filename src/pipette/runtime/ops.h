// Which ops a runtime's worker serves, as its hello reply says (docs/protocol.md "hello"): read
// once when the worker starts and kept for the run, so a workload whose op is missing is told
// apart from one that failed.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "pipette/protocol/session_ops.h"

namespace pipette::runtime {

class SupportedOps {
 public:
  // Every op of the protocol (a hello without `ops` claims them all).
  SupportedOps();
  // The ops `hello` names; all of them when it names none.
  static SupportedOps FromHello(const protocol::HelloResponse& hello);

  bool Has(std::string_view op) const { return ops_.count(std::string(op)) > 0; }

 private:
  std::set<std::string> ops_;
};

}  // namespace pipette::runtime
