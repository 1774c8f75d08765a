// Chat prompts for a runtime without a template engine of its own: its worker lacks
// `render_chat`, so the cell's chat template (the loaded model's `tokenizer.chat_template`, as
// its runtime reports it in load_model's `model.meta`) is rendered by the worker of the runtime
// that renders them (config::Experiment::chat_renderer: llama.cpp's), with the same engine and
// settings as that runtime's own `chat`. Every runtime is so sent the same prompt bytes, and the
// rendered prompt's SHA-256 is equal across runtimes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipette/protocol/quality_ops.h"
#include "pipette/workload/context.h"

namespace pipette::workload {

class ChatRenderer {
 public:
  ~ChatRenderer();
  // The cell's prompt for `messages`, rendered by the renderer's worker (started on first use,
  // kept for the run, started again after it failed).
  Result<protocol::RenderChatResponse, RunError> Render(
      Context& ctx, const std::vector<protocol::ChatMessage>& messages,
      const nlohmann::json& options);
  // Shuts the renderer's worker down.
  void Finish();

 private:
  Result<protocol::RenderChatRequest, RunError> Source(Context& ctx);

  std::unique_ptr<worker::WorkerChannel> channel_;
  std::string source_key_;              // the load the source below was read for
  protocol::RenderChatRequest source_;  // the template and its tokens, no messages
};

}  // namespace pipette::workload
