#include "pipette/run/runtime_params.h"

#include <algorithm>
#include <string>

namespace pipette::run {
namespace {

using config::ParamDef;
using config::ParamScope;
using nlohmann::json;

// The parameters of one stage the cell sets, each as its request fields.
void AddStage(const plan::Cell& cell, const config::ParamRegistry& registry, ParamScope stage,
              json* req) {
  for (const ParamDef& def : registry.defs()) {
    if (def.scope != stage || !cell.HasParam(def.name)) continue;
    for (const std::string& field : def.request_fields) {
      (*req)[field] = config::ParamRegistry::ToJson(def, cell.Param(def.name));
    }
  }
}

// A reply's value for `def`, or nullptr when it gave none a parameter can take (a choice
// parameter's value must be one of its choices).
const json* AppliedValue(const ParamDef& def, const json& reply) {
  if (def.applied_field.empty() || !reply.is_object()) return nullptr;
  auto it = reply.find(def.applied_field);
  if (it == reply.end() || it->is_null()) return nullptr;
  if (def.kind == config::ParamKind::kChoice &&
      (!it->is_string() || std::find(def.choices.begin(), def.choices.end(),
                                     it->get<std::string>()) == def.choices.end())) {
    return nullptr;
  }
  return &*it;
}

}  // namespace

json LoadRequest(const plan::Cell& cell, const config::ParamRegistry& registry) {
  json req = {{"op", "load_model"}, {"path", cell.model.path}};
  AddStage(cell, registry, ParamScope::kLoad, &req);
  return req;
}

json ContextRequest(const plan::Cell& cell, const config::ParamRegistry& registry) {
  json req = {{"op", "init_context"}};
  AddStage(cell, registry, ParamScope::kContext, &req);
  return req;
}

json RequestFacts(json request) {
  request.erase("op");
  return request;
}

json AppliedLoadParams(const json& load_reply, const config::ParamRegistry& registry) {
  json out = json::object();
  for (const ParamDef& def : registry.defs()) {
    if (def.scope != ParamScope::kLoad) continue;
    if (const json* v = AppliedValue(def, load_reply)) out[def.applied_field] = *v;
  }
  return out;
}

json AppliedParams(const json& planned, const json& load_applied, const json& context_reply,
                   const config::ParamRegistry& registry) {
  json out = planned;
  for (const ParamDef& def : registry.defs()) {
    if (def.applied_field.empty() || def.scope == ParamScope::kTest) continue;
    const json& reply = def.scope == ParamScope::kLoad ? load_applied : context_reply;
    const bool set = out.contains(def.name);
    if (const json* v = AppliedValue(def, reply); v && (!set || def.runtime_resolves)) {
      out[def.name] = *v;
    } else if (!set && !def.unreported.empty()) {
      out[def.name] = config::ParamRegistry::ToJson(def, def.unreported);
    }
  }
  return out;
}

}  // namespace pipette::run
