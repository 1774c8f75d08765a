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
  // A template given as text: the engine does not know the vocabulary, so the BOS text the
  // template writes first and the EOS text it writes last are removed here, by the engine's own
  // rule (common_chat_template_direct_apply) for a vocabulary that adds them.
  bool strip_bos = false, strip_eos = false;
  std::string bos_text, eos_text;
};

ChatTemplate::ChatTemplate(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ChatTemplate::~ChatTemplate() = default;

Result<std::unique_ptr<ChatTemplate>> ChatTemplate::Load(const llama_model* model) {
  auto impl = std::make_unique<Impl>();
  try {
    impl->templates = common_chat_templates_init(model, /*chat_template_override=*/"");
  } catch (const std::exception& e) {
    return Error{std::string("llama.cpp cannot parse the model's chat template: ") + e.what()};
  }
  return Make(std::move(impl), llama_model_chat_template(model, /*name=*/nullptr),
              llama_model_chat_template(model, "tool_use"));
}

Result<std::unique_ptr<ChatTemplate>> ChatTemplate::FromText(const Source& source) {
  auto impl = std::make_unique<Impl>();
  // common_chat_templates_init reads the tool-use template from a model only; given as text, a
  // model with no template of its own renders with its tool-use one, as Load would.
  std::string text = source.own;
  if (text.empty() || text == "chatml") text = source.tool_use.value_or("");
  try {
    impl->templates = common_chat_templates_init(/*model=*/nullptr, text.empty() ? "chatml" : text,
                                                 source.bos_text, source.eos_text);
  } catch (const std::exception& e) {
    return Error{std::string("llama.cpp cannot parse the model's chat template: ") + e.what()};
  }
  impl->strip_bos = source.add_bos;
  impl->strip_eos = source.add_eos;
  impl->bos_text = source.bos_text;
  impl->eos_text = source.eos_text;
  return Make(std::move(impl), source.own.c_str(),
              source.tool_use ? source.tool_use->c_str() : nullptr);
}

Result<std::unique_ptr<ChatTemplate>> ChatTemplate::Make(std::unique_ptr<Impl> impl,
                                                         const char* own, const char* tool_use) {
  try {
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
    if (impl_->strip_bos && !impl_->bos_text.empty() && out.prompt.starts_with(impl_->bos_text)) {
      out.prompt.erase(0, impl_->bos_text.size());
    }
    if (impl_->strip_eos && !impl_->eos_text.empty() && out.prompt.ends_with(impl_->eos_text)) {
      out.prompt.resize(out.prompt.size() - impl_->eos_text.size());
    }
  } catch (const std::exception& e) {
    return Error{std::string("llama.cpp cannot render the model's chat template: ") + e.what()};
  }
  out.enable_thinking = inputs.enable_thinking;
  return out;
}

}  // namespace pipette::llama_worker
