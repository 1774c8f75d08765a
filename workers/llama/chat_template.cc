#include "chat_template.h"

#include <chat.h>

#include <exception>
#include <map>
#include <utility>

namespace pipette::llama_worker {

struct ChatTemplate::Impl {
  common_chat_templates_ptr templates;
  // What llama-server works out once at start-up (tools/server/server-context.cpp): thinking is
  // on when the template supports it (its default --reasoning auto), and parallel tool calls as
  // the template's capabilities say.
  bool supports_thinking = false;
  bool parallel_tool_calls = false;
};

ChatTemplate::ChatTemplate(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ChatTemplate::~ChatTemplate() = default;

Result<std::unique_ptr<ChatTemplate>> ChatTemplate::Load(const llama_model* model) {
  auto impl = std::make_unique<Impl>();
  try {
    impl->templates = common_chat_templates_init(model, /*chat_template_override=*/"");
    impl->supports_thinking = common_chat_templates_support_enable_thinking(impl->templates.get());
    const std::map<std::string, bool> caps = common_chat_templates_get_caps(impl->templates.get());
    const auto parallel = caps.find("supports_parallel_tool_calls");
    impl->parallel_tool_calls = parallel != caps.end() && parallel->second;
  } catch (const std::exception& e) {
    return Error{std::string("llama.cpp cannot parse the model's chat template: ") + e.what()};
  }
  std::unique_ptr<ChatTemplate> t(new ChatTemplate(std::move(impl)));
  t->source_ = common_chat_templates_source(t->impl_->templates.get(), "");
  // common_chat_templates_init takes the default template, else the tool-use one, else chatml.
  const char* own = llama_model_chat_template(model, /*name=*/nullptr);
  const char* tool_use = llama_model_chat_template(model, "tool_use");
  if (own != nullptr && *own != '\0' && std::string(own) != "chatml") {
    t->origin_ = "tokenizer.chat_template";
  } else if (tool_use != nullptr && *tool_use != '\0') {
    t->origin_ = "tokenizer.chat_template.tool_use";
  } else {
    t->origin_ = "chatml";
  }
  return t;
}

Result<RenderedChat> ChatTemplate::Render(const std::vector<ChatMessage>& messages,
                                          const nlohmann::json& options) const {
  // The inputs llama-server builds for a chat completion without tools
  // (oaicompat_chat_params_parse in tools/server/server-common.cpp), with its default settings.
  common_chat_templates_inputs inputs;
  for (const ChatMessage& m : messages) {
    common_chat_msg msg;
    msg.role = m.role;
    msg.content = m.content;
    inputs.messages.push_back(std::move(msg));
  }
  inputs.tool_choice = COMMON_CHAT_TOOL_CHOICE_AUTO;
  inputs.use_jinja = true;
  inputs.parallel_tool_calls = impl_->parallel_tool_calls;
  inputs.add_generation_prompt = true;
  inputs.continue_final_message = COMMON_CHAT_CONTINUATION_NONE;
  inputs.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK;
  inputs.enable_thinking = impl_->supports_thinking;
  inputs.force_pure_content = false;
  if (!options.is_object()) return Error{"'template_options' must be an object of JSON scalars"};
  for (const auto& [key, value] : options.items()) {
    if (value.is_object() || value.is_array()) {
      return Error{"template_options." + key +
                   " must be a JSON scalar (string, number, boolean, null)"};
    }
    inputs.chat_template_kwargs[key] = value.dump();  // the server keeps each value as JSON text
  }
  // As the server: an enable_thinking option also sets the engine's switch.
  if (const auto it = inputs.chat_template_kwargs.find("enable_thinking");
      it != inputs.chat_template_kwargs.end()) {
    if (it->second == "true") {
      inputs.enable_thinking = true;
    } else if (it->second == "false") {
      inputs.enable_thinking = false;
    } else if (!it->second.empty() && it->second.front() == '"') {
      return Error{"template_options.enable_thinking must be a boolean, not a string"};
    }
  }
  RenderedChat out;
  try {
    out.prompt = common_chat_templates_apply(impl_->templates.get(), inputs).prompt;
  } catch (const std::exception& e) {
    return Error{std::string("llama.cpp cannot render the model's chat template: ") + e.what()};
  }
  out.enable_thinking = inputs.enable_thinking;
  return out;
}

}  // namespace pipette::llama_worker
