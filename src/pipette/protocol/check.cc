#include "pipette/protocol/check.h"

#include <string>

#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/protocol/quant_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/speed_ops.h"

namespace pipette::protocol {
namespace {

using nlohmann::json;

template <class T>
Status Parses(const json& message) {
  auto parsed = T::FromJson(message);
  if (!parsed) return parsed.error();
  return {};
}

}  // namespace

Status CheckRequest(const json& request) {
  const auto op_field = request.is_object() ? request.find("op") : request.end();
  const std::string name = op_field != request.end() && op_field->is_string()
                               ? op_field->get<std::string>()
                               : std::string();
  if (name == op::kHello) return Parses<HelloRequest>(request);
  if (name == op::kLoadModel) return Parses<LoadModelRequest>(request);
  if (name == op::kInitContext) return Parses<InitContextRequest>(request);
  if (name == op::kResetPeakMemory) return Parses<ResetPeakMemoryRequest>(request);
  if (name == op::kMemory) return Parses<MemoryRequest>(request);
  if (name == op::kTokenize) return Parses<TokenizeRequest>(request);
  if (name == op::kDetokenize) return Parses<DetokenizeRequest>(request);
  if (name == op::kPp) return Parses<PpRequest>(request);
  if (name == op::kTg) return Parses<TgRequest>(request);
  if (name == op::kTtft) return Parses<TtftRequest>(request);
  if (name == op::kE2e) return Parses<E2eRequest>(request);
  if (name == op::kScore) return Parses<ScoreRequest>(request);
  if (name == op::kChat) return Parses<ChatRequest>(request);
  if (name == op::kRenderChat) return Parses<RenderChatRequest>(request);
  if (name == op::kQuantize) return Parses<QuantizeRequest>(request);
  if (name == op::kImatrix) return Parses<ImatrixRequest>(request);
  if (name == op::kShutdown) return Parses<ShutdownRequest>(request);
  return Error{"unknown op '" + name + "'"};
}

Status CheckResponse(std::string_view name, const json& response, bool frames) {
  if (name == op::kHello) return Parses<HelloResponse>(response);
  if (name == op::kLoadModel) return Parses<LoadModelResponse>(response);
  if (name == op::kInitContext) return Parses<InitContextResponse>(response);
  if (name == op::kResetPeakMemory) return Parses<ResetPeakMemoryResponse>(response);
  if (name == op::kMemory) return Parses<MemoryResponse>(response);
  if (name == op::kTokenize) return Parses<TokenizeResponse>(response);
  if (name == op::kDetokenize) return Parses<DetokenizeResponse>(response);
  if (name == op::kPp) return Parses<PpResponse>(response);
  if (name == op::kTg) return Parses<TgResponse>(response);
  if (name == op::kTtft) return Parses<TtftResponse>(response);
  if (name == op::kE2e) return Parses<E2eResponse>(response);
  if (name == op::kScore) {
    return frames ? Parses<ScoreFramesResponse>(response) : Parses<ScoreResponse>(response);
  }
  if (name == op::kChat) return Parses<ChatResponse>(response);
  if (name == op::kRenderChat) return Parses<RenderChatResponse>(response);
  if (name == op::kQuantize) return Parses<QuantizeResponse>(response);
  if (name == op::kImatrix) return Parses<ImatrixResponse>(response);
  if (name == op::kShutdown) return Parses<ShutdownResponse>(response);
  return Error{"unknown op '" + std::string(name) + "'"};
}

}  // namespace pipette::protocol
