// The ops of the worker protocol (docs/protocol.md "Requests"), by the names that go on the wire.
// Each has a typed request and response (session_ops.h, model_ops.h, speed_ops.h,
// quality_ops.h, quant_ops.h); this list is what docs/protocol.md is checked against.
#pragma once

#include <span>
#include <string_view>

namespace pipette::protocol {

namespace op {
inline constexpr char kHello[] = "hello";
inline constexpr char kLoadModel[] = "load_model";
inline constexpr char kInitContext[] = "init_context";
inline constexpr char kResetPeakMemory[] = "reset_peak_memory";
inline constexpr char kMemory[] = "memory";
inline constexpr char kTokenize[] = "tokenize";
inline constexpr char kDetokenize[] = "detokenize";
inline constexpr char kPp[] = "pp";
inline constexpr char kTg[] = "tg";
inline constexpr char kTtft[] = "ttft";
inline constexpr char kE2e[] = "e2e";
inline constexpr char kScore[] = "score";
inline constexpr char kChat[] = "chat";
inline constexpr char kRenderChat[] = "render_chat";
inline constexpr char kQuantize[] = "quantize";
inline constexpr char kImatrix[] = "imatrix";
inline constexpr char kShutdown[] = "shutdown";
}  // namespace op

// Every op, in the order docs/protocol.md documents them.
std::span<const std::string_view> Ops();
bool IsOp(std::string_view name);

}  // namespace pipette::protocol
