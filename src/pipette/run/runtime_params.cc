#include "pipette/run/runtime_params.h"

#include <string>

namespace pipette::run {

using nlohmann::json;

json LoadRequest(const plan::Cell& cell) {
  json req = {{"op", "load_model"}, {"path", cell.model.path}};
  if (cell.HasParam("use_mmap")) req["use_mmap"] = cell.Param("use_mmap") == "true";
  if (cell.HasParam("n_gpu_layers")) req["n_gpu_layers"] = cell.IntParam("n_gpu_layers");
  return req;
}

json ContextRequest(const plan::Cell& cell) {
  json req = {{"op", "init_context"}, {"n_ctx", cell.IntParam("n_ctx")}};
  for (const char* k : {"n_batch", "n_ubatch"}) {
    if (cell.HasParam(k)) req[k] = cell.IntParam(k);
  }
  if (cell.HasParam("threads")) {
    req["n_threads"] = cell.IntParam("threads");
    req["n_threads_batch"] = cell.IntParam("threads");
  }
  for (const char* k : {"type_k", "type_v", "flash_attn"}) {
    if (cell.HasParam(k)) req[k] = cell.Param(k);
  }
  return req;
}

json RequestFacts(json request) {
  request.erase("op");
  return request;
}

json AppliedLoadParams(const json& load_reply) {
  json out = json::object();
  for (const char* k : {"use_mmap", "n_gpu_layers"}) {
    if (load_reply.contains(k)) out[k] = load_reply[k];
  }
  return out;
}

json AppliedParams(const json& planned, const json& load_applied, const json& context_reply) {
  json out = planned;
  auto fill = [&](const char* name, const json& from, const char* field) {
    if (!out.contains(name) && from.contains(field)) out[name] = from[field];
  };
  fill("threads", context_reply, "n_threads");
  fill("n_batch", context_reply, "n_batch");
  fill("n_ubatch", context_reply, "n_ubatch");
  fill("type_k", context_reply, "type_k");
  fill("type_v", context_reply, "type_v");
  fill("use_mmap", load_applied, "use_mmap");
  fill("n_gpu_layers", load_applied, "n_gpu_layers");
  // Flash attention as it ran: the runtime's resolution (of auto, or of an on it had to turn
  // off); what was asked (auto when unset) where the runtime did not say.
  const std::string resolved = context_reply.value("flash_attn_resolved", std::string());
  if (resolved == "on" || resolved == "off") {
    out["flash_attn"] = resolved;
  } else if (!out.contains("flash_attn")) {
    out["flash_attn"] = "auto";
  }
  return out;
}

}  // namespace pipette::run
