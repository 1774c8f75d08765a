// The verdicts on one completion of a generation task (docs/tasks.md "Generation tasks"): the
// answers extracted and matched exactly against the item's target (kGenerate), or the program
// it completes run in the sandbox (kExecute). Apart from the generating, so that a fixed set of
// completions (hand-made correct and incorrect solutions) is judged exactly as a run judges its
// model's (judge_test.cc).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pipette/sandbox/sandbox.h"
#include "pipette/util/result.h"
#include "pipette/workload/task/definition.h"
#include "pipette/workload/task/items.h"

namespace pipette::workload::task {

// {"ok": {metric: bool, ...}, "target", "answers": {extractor: answer}} for kGenerate;
// {"ok": {"pass_at_1": bool}, "program": {outcome, exit_code, signal, output}} for kExecute,
// whose program runs in `box` (required then). An error only when the sandbox could not start.
Result<nlohmann::json> Judge(const TaskDef& def, const Item& item, const std::string& completion,
                             sandbox::Sandbox* box);

}  // namespace pipette::workload::task
