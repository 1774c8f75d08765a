#include "pipette/workload/gen/renderer.h"

#include <fmt/format.h>

#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/util/json_read.h"

namespace pipette::workload {

using nlohmann::json;
using std::chrono::milliseconds;

ChatRenderer::~ChatRenderer() { Finish(); }

void ChatRenderer::Finish() {
  if (channel_) channel_->Shutdown(milliseconds(2000));
  channel_.reset();
}

namespace {

// A metadata entry of the loaded model, as its runtime reported it; "" when absent.
std::string Meta(const protocol::ModelInfo& model, const char* key) {
  return json_read::String(model.meta, key);
}

// The text of one special token (BOS, EOS) as the cell's tokenizer writes it; "" for none.
Result<std::string, RunError> TokenText(Context& ctx, int64_t id) {
  if (id < 0) return std::string();
  protocol::DetokenizeRequest req;
  req.tokens = {static_cast<int32_t>(id)};
  req.unparse_special = true;
  auto resp = ctx.Call(req.ToJson());
  if (!resp) return resp.error();
  auto typed = protocol::DetokenizeResponse::FromJson(*resp);
  if (!typed) return Broken(typed.error().message);
  return typed->text;
}

}  // namespace

Result<protocol::RenderChatRequest, RunError> ChatRenderer::Source(Context& ctx) {
  if (source_key_ == ctx.LoadKey() && !source_key_.empty()) return source_;
  const protocol::ModelInfo& model = ctx.Model();
  protocol::RenderChatRequest src;
  src.template_text = Meta(model, "tokenizer.chat_template");
  if (std::string tool_use = Meta(model, "tokenizer.chat_template.tool_use"); !tool_use.empty()) {
    src.template_tool_use = std::move(tool_use);
  }
  auto bos = TokenText(ctx, model.bos);
  if (!bos) return bos.error();
  auto eos = TokenText(ctx, model.eos);
  if (!eos) return eos.error();
  src.bos_text = std::move(*bos);
  src.eos_text = std::move(*eos);
  src.add_bos = model.add_bos;
  src.add_eos = Meta(model, "tokenizer.ggml.add_eos_token") == "true";
  source_ = std::move(src);
  source_key_ = ctx.LoadKey();
  return source_;
}

Result<protocol::RenderChatResponse, RunError> ChatRenderer::Render(
    Context& ctx, const std::vector<protocol::ChatMessage>& messages, const json& options) {
  const std::string& program = ctx.Experiment().chat_renderer;
  if (program.empty()) {
    return Failed(
        "this runtime does not render chat templates and no registered runtime does: gen needs "
        "one");
  }
  auto source = Source(ctx);
  if (!source) return source.error();
  if (!channel_ || !channel_->Alive()) {
    ctx.Step(fmt::format("gen: starting the chat-template renderer ({})", program));
    auto ch = ctx.Device().StartWorker({program});
    if (!ch) return Failed("cannot start the chat-template renderer: " + ch.error().message);
    channel_ = std::move(*ch);
    auto hello = ctx.Call(protocol::HelloRequest{}.ToJson(), channel_.get());
    if (!hello) {
      Finish();
      return Failed("the chat-template renderer failed: " + hello.error().message);
    }
  }
  protocol::RenderChatRequest req = *source;
  req.messages = messages;
  req.template_options = options;
  auto resp = ctx.Call(req.ToJson(), channel_.get());
  if (!resp) {
    // Its own failure, not the cell's worker's: the cell fails, the cell's worker is fine.
    const bool broken = !channel_->Alive();
    if (broken) Finish();
    return Failed("the chat-template renderer failed: " + resp.error().message);
  }
  auto typed = protocol::RenderChatResponse::FromJson(*resp);
  if (!typed) {
    Finish();
    return Failed("the chat-template renderer failed: " + typed.error().message);
  }
  return std::move(*typed);
}

}  // namespace pipette::workload
