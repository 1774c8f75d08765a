// Renders chat messages into a prompt with llama.cpp's own chat-template engine (common/chat.h),
// the way `llama-server --jinja` renders a chat completion: the model's Jinja template
// (tokenizer.chat_template) run by llama.cpp's Jinja interpreter, so a template's defaults (a
// default system message, say) are what the model sees.
#pragma once

#include <llama.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/protocol/quality_ops.h"
#include "pipette/util/result.h"

namespace pipette::llama_worker {

using protocol::ChatMessage;

struct RenderedChat {
  std::string prompt;            // the rendered text, leading BOS text removed as the server does
  bool enable_thinking = false;  // the value the template saw
};

class ChatTemplate {
 public:
  // Reads and parses the loaded model's templates.
  static Result<std::unique_ptr<ChatTemplate>> Load(const llama_model* model);

  // The same from a model's templates given as text (`render_chat`: no model loaded), with its
  // BOS and EOS texts and whether its vocabulary adds BOS and EOS, which is what Load reads from
  // the model. An empty `own` with no `tool_use` is llama.cpp's ChatML, as for a model without one.
  struct Source {
    std::string own;                      // tokenizer.chat_template
    std::optional<std::string> tool_use;  // tokenizer.chat_template.tool_use
    std::string bos_text, eos_text;
    bool add_bos = false, add_eos = false;
  };
  static Result<std::unique_ptr<ChatTemplate>> FromText(const Source& source);
  ~ChatTemplate();
  ChatTemplate(const ChatTemplate&) = delete;
  ChatTemplate& operator=(const ChatTemplate&) = delete;

  // The template text that renders (the model file's, as llama.cpp reads it).
  const std::string& source() const { return source_; }
  // Where it comes from: "tokenizer.chat_template", "tokenizer.chat_template.tool_use", or
  // "chatml" (llama.cpp's fallback for a model file without a template).
  const std::string& origin() const { return origin_; }

  // Renders `messages` and opens the assistant's turn (add_generation_prompt). `options` is a
  // JSON object of scalars passed to the template as variables (llama-server's
  // chat_template_kwargs); "enable_thinking" also sets the engine's own switch, as the server
  // does.
  Result<RenderedChat> Render(const std::vector<ChatMessage>& messages,
                              const nlohmann::json& options) const;

 private:
  struct Impl;
  explicit ChatTemplate(std::unique_ptr<Impl> impl);
  static Result<std::unique_ptr<ChatTemplate>> Make(std::unique_ptr<Impl> impl, const char* own,
                                                    const char* tool_use);

  std::unique_ptr<Impl> impl_;
  std::string source_;
  std::string origin_;
};

}  // namespace pipette::llama_worker
