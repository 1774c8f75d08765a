#include "pipette/workload/context.h"

#include "pipette/protocol/model_ops.h"

namespace pipette::workload {

using nlohmann::json;

json RawFacts(json response) {
  response.erase("id");
  response.erase("ok");
  return response;
}

Result<std::vector<int64_t>, RunError> Tokenize(Context& ctx, const std::string& text,
                                                bool add_special, worker::WorkerChannel* to) {
  auto resp = ctx.Call(protocol::TokenizeRequest{text, add_special, false}.ToJson(), to);
  if (!resp) return resp.error();
  auto typed = protocol::TokenizeResponse::FromJson(*resp);
  if (!typed) return Broken(typed.error().message);
  return std::vector<int64_t>(typed->tokens.begin(), typed->tokens.end());
}

}  // namespace pipette::workload
