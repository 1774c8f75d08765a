#include "pipette/run/resume.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

namespace pipette::run {

Result<ResumePlan> PlanResume(const std::vector<plan::Cell>& cells,
                              const std::vector<store::CellRecord>& stored, bool retry_failed) {
  ResumePlan plan;
  // The latest attempt of each index (superseded ones were measured again already).
  std::map<int, const store::CellRecord*> latest;
  for (const store::CellRecord& c : stored) {
    if (c.status == "superseded") continue;
    if (c.index < 0 || c.index >= static_cast<int>(cells.size())) {
      return InputError(
          fmt::format("the run has a cell {} ({}), but the experiment now makes {} "
                      "cell(s)",
                      c.index + 1, c.key, cells.size()));
    }
    auto& slot = latest[c.index];
    if (!slot || c.id > slot->id) slot = &c;
  }
  for (const plan::Cell& cell : cells) {
    auto it = latest.find(cell.index);
    if (it == latest.end()) {
      plan.to_run.push_back(cell.index);
      continue;
    }
    const store::CellRecord& c = *it->second;
    if (c.key != cell.Key()) {
      return InputError(fmt::format("cell {} of the run was {}; the experiment now makes {}",
                                    cell.index + 1, c.key, cell.Key()));
    }
    if (c.status == "ok") {
      plan.done[cell.index] = c.id;
    } else if ((c.status == "failed" || c.status == "oom") && !retry_failed) {
      ++plan.failed_kept;
    } else {
      // Cut short (running, interrupted, abandoned), or failed and retried: from its start.
      plan.supersede[cell.index] = c.id;
      if (c.status != "failed" && c.status != "oom") plan.cut_short[cell.index] = c.id;
      plan.to_run.push_back(cell.index);
    }
  }
  return plan;
}

Status LoadReferences(store::Store& store, const config::Experiment& ex,
                      const std::vector<plan::Cell>& cells,
                      const std::vector<std::unique_ptr<workload::Workload>>& workloads,
                      ResumePlan* plan) {
  if (plan->to_run.empty()) return {};
  workload::ResumeInput in{plan->run_id, &cells, plan->done, plan->cut_short};
  for (const auto& w : workloads) {
    auto state = w->ResumeState(store, ex, in);
    if (!state) return state.error();
    if (!state->is_null()) plan->workload_state[w->Name()] = std::move(*state);
  }
  return {};
}

std::string DescribeDifference(const std::string& then, const std::string& now) {
  using nlohmann::json;
  const json a = json::parse(then, nullptr, false);
  const json b = json::parse(now, nullptr, false);
  if (a.is_discarded() || b.is_discarded() || !a.is_object() || !b.is_object()) return "";
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  std::string out;
  for (const std::string& k : keys) {
    const json x = a.value(k, json());
    const json y = b.value(k, json());
    if (x == y) continue;
    auto show = [](const json& j) {
      std::string s = j.is_null() ? "(none)" : j.dump();
      return s.size() > 160 ? s.substr(0, 157) + "..." : s;
    };
    out += fmt::format("{}{}: {} then, {} now", out.empty() ? "" : "; ", k, show(x), show(y));
  }
  return out;
}

}  // namespace pipette::run
