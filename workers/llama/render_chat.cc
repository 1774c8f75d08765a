#include "render_chat.h"

#include "chat_template.h"
#include "pipette/protocol/quality_ops.h"

namespace pipette::llama_worker {

worker_common::Reply RenderChat(const nlohmann::json& request) {
  auto req = protocol::RenderChatRequest::FromJson(request);
  if (!req) return req.error();
  auto tmpl = ChatTemplate::FromText({req->template_text, req->template_tool_use, req->bos_text,
                                      req->eos_text, req->add_bos, req->add_eos});
  if (!tmpl) return tmpl.error();
  auto rendered = (*tmpl)->Render(req->messages, req->template_options);
  if (!rendered) return rendered.error();
  protocol::RenderChatResponse out;
  out.template_text = (*tmpl)->source();
  out.template_origin = (*tmpl)->origin();
  out.template_options = req->template_options;
  out.enable_thinking = rendered->enable_thinking;
  out.prompt = std::move(rendered->prompt);
  return out.ToJson();
}

}  // namespace pipette::llama_worker
