#include "pipette/workload/task/judge.h"

namespace pipette::workload::task {

using nlohmann::json;

Result<json> Judge(const TaskDef& def, const Item& item, const std::string& completion,
                   sandbox::Sandbox* box) {
  json ok = json::object();
  json out = json::object();
  if (def.kind == Kind::kGenerate) {
    const std::string target = Normalise(def.gen.answer, item.target);
    json answers = json::object();
    for (const Extractor& x : def.gen.answer.extract) {
      const std::string answer = Extract(x, completion);
      answers[x.name] = answer;
      ok[ExactMatchMetric(x.name)] = Normalise(def.gen.answer, answer) == target;
    }
    out["target"] = item.target;
    out["answers"] = std::move(answers);
  } else if (def.kind == Kind::kExecute) {
    if (!box) return RuntimeError("an executed task's programs need the sandbox");
    auto verdict = box->RunPython(item.program_before + completion + item.program_after);
    if (!verdict) return verdict.error();
    ok[kPassAt1] = verdict->passed;
    out["program"] = {{"outcome", verdict->outcome},
                      {"exit_code", verdict->exit_code},
                      {"signal", verdict->signal},
                      {"output", verdict->output}};
  } else {
    return RuntimeError("a choice task's items are scored, not judged");
  }
  out["ok"] = std::move(ok);
  return out;
}

}  // namespace pipette::workload::task
