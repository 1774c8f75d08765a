#include "pipette/protocol/ops.h"

#include <algorithm>
#include <array>

namespace pipette::protocol {
namespace {

constexpr std::array<std::string_view, 17> kOps = {
    op::kHello,    op::kLoadModel,  op::kInitContext, op::kResetPeakMemory,
    op::kMemory,   op::kTokenize,   op::kDetokenize,  op::kPp,
    op::kTg,       op::kTtft,       op::kE2e,         op::kScore,
    op::kChat,     op::kRenderChat, op::kQuantize,    op::kImatrix,
    op::kShutdown,
};

}  // namespace

std::span<const std::string_view> Ops() { return kOps; }

bool IsOp(std::string_view name) { return std::find(kOps.begin(), kOps.end(), name) != kOps.end(); }

}  // namespace pipette::protocol
