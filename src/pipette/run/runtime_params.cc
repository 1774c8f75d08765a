#include "pipette/run/runtime_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "pipette/protocol/model_ops.h"
#include "pipette/runtime/runtime.h"

namespace pipette::run {
namespace {

using nlohmann::json;
using runtime::ParamDef;
using runtime::ParamScope;

// The parameters of one stage the cell sets, each as its request fields.
void AddStage(const plan::Cell& cell, const runtime::ParamRegistry& registry, ParamScope stage,
              json* req) {
  for (const ParamDef& def : registry.defs()) {
    const std::string* value = runtime::FindParam(cell.params, def.name);
    if (def.scope != stage || !value || !def.BelongsTo(cell.runtime.name)) continue;
    for (const std::string& field : def.request_fields) {
      (*req)[field] = runtime::ParamRegistry::ToJson(def, *value);
    }
  }
}

// A reply's value for `def`, or nullptr when it gave none a parameter can take (a choice
// parameter's value must be one of its choices).
const json* AppliedValue(const ParamDef& def, const json& reply) {
  if (def.applied_field.empty() || !reply.is_object()) return nullptr;
  auto it = reply.find(def.applied_field);
  if (it == reply.end() || it->is_null()) return nullptr;
  if (def.kind == runtime::ParamKind::kChoice &&
      (!it->is_string() || std::find(def.choices.begin(), def.choices.end(),
                                     it->get<std::string>()) == def.choices.end())) {
    return nullptr;
  }
  return &*it;
}

}  // namespace

json LoadRequest(const plan::Cell& cell, const runtime::ParamRegistry& registry) {
  return LoadRequest(cell, registry, cell.model.path);
}

json LoadRequest(const plan::Cell& cell, const runtime::ParamRegistry& registry,
                 const std::string& path) {
  protocol::LoadModelRequest req{.path = path};
  AddStage(cell, registry, ParamScope::kLoad, &req.options);
  req.options.erase("path");
  return req.ToJson();
}

json ContextRequest(const plan::Cell& cell, const runtime::ParamRegistry& registry) {
  protocol::InitContextRequest req;
  AddStage(cell, registry, ParamScope::kContext, &req.options);
  // n_ctx is a field of the request itself (Pipette's own parameter: every cell holds it).
  if (auto n_ctx = req.options.find("n_ctx"); n_ctx != req.options.end()) {
    if (n_ctx->is_number_integer()) req.n_ctx = n_ctx->get<int64_t>();
    req.options.erase(n_ctx);
  }
  return req.ToJson();
}

json RequestFacts(json request) {
  request.erase("op");
  return request;
}

json AppliedLoadParams(const json& load_reply, const runtime::ParamRegistry& registry,
                       std::string_view runtime) {
  json out = json::object();
  for (const ParamDef& def : registry.defs()) {
    if (def.scope != ParamScope::kLoad || !def.BelongsTo(runtime)) continue;
    if (const json* v = AppliedValue(def, load_reply)) out[def.applied_field] = *v;
  }
  return out;
}

json AppliedParams(const json& planned, const json& load_applied, const json& context_reply,
                   const runtime::ParamRegistry& registry, std::string_view runtime) {
  json out = planned;
  for (const ParamDef& def : registry.defs()) {
    if (def.applied_field.empty() || def.scope == ParamScope::kTest || !def.BelongsTo(runtime)) {
      continue;
    }
    const json& reply = def.scope == ParamScope::kLoad ? load_applied : context_reply;
    const bool set = out.contains(def.name);
    if (const json* v = AppliedValue(def, reply); v && (!set || def.runtime_resolves)) {
      out[def.name] = *v;
    } else if (!set && !def.unreported.empty()) {
      out[def.name] = runtime::ParamRegistry::ToJson(def, def.unreported);
    }
  }
  return out;
}

Status AppliedAsPlanned(const plan::Cell& cell, const json& load_reply, const json& context_reply,
                        const runtime::ParamRegistry& registry) {
  for (const ParamDef& def : registry.defs()) {
    if (!def.must_apply_as_planned || def.scope == ParamScope::kTest) continue;
    const std::string* planned = runtime::FindParam(cell.params, def.name);
    if (!planned) continue;
    const json& reply = def.scope == ParamScope::kLoad ? load_reply : context_reply;
    const std::string field = def.applied_field.empty() ? def.name : def.applied_field;
    if (!reply.is_object() || !reply.contains(field)) continue;
    const json want = runtime::ParamRegistry::ToJson(def, *planned);
    if (reply[field] != want) {
      return RuntimeError(fmt::format("the runtime applied {} {} instead of the planned {}",
                                      def.name, reply[field].dump(), *planned));
    }
  }
  return {};
}

}  // namespace pipette::run
