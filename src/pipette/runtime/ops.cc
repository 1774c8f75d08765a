#include "pipette/runtime/ops.h"

#include "pipette/protocol/ops.h"

namespace pipette::runtime {

SupportedOps::SupportedOps() {
  for (std::string_view op : protocol::Ops()) ops_.emplace(op);
}

SupportedOps SupportedOps::FromHello(const protocol::HelloResponse& hello) {
  SupportedOps out;
  if (hello.ops.empty()) return out;
  out.ops_.clear();
  for (const std::string& op : hello.ops) out.ops_.insert(op);
  return out;
}

}  // namespace pipette::runtime
