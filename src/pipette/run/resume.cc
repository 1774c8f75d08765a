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
    } else if (c.status == "failed" && !retry_failed) {
      ++plan.failed_kept;
    } else {
      // Cut short (running, interrupted, abandoned), or failed and retried: from its start.
      plan.supersede[cell.index] = c.id;
      plan.to_run.push_back(cell.index);
    }
  }
  return plan;
}

Status LoadReferences(store::Store& store, const config::Experiment& ex,
                      const std::vector<plan::Cell>& cells, ResumePlan* plan) {
  using nlohmann::json;
  if (plan->to_run.empty() || (!ex.kld && !ex.divergence_reference)) return {};
  auto samples = store.SamplesOfRun(plan->run_id, {"kld", "kld_ref", "gen_dataset"});
  if (!samples) return samples.error();
  std::set<int64_t> kept;
  for (const auto& [index, id] : plan->done) kept.insert(id);
  // What the kept cells were compared with.
  int64_t kld_ref = 0, gen_ref = 0;
  std::map<int64_t, ResumePlan::KldReference> recorded;  // cell id -> its kld reference
  for (const store::SampleRecord& s : *samples) {
    const json request = s.raw.value("request", json::object());
    if (s.test == "kld" && kept.count(s.cell_id) && !kld_ref) {
      kld_ref = request.value("ref_cell_id", int64_t{0});
    } else if (s.test == "gen_dataset" && kept.count(s.cell_id) && !gen_ref) {
      gen_ref = s.raw.value("divergence_reference_cell_id", int64_t{0});
    } else if (s.test == "kld_ref") {
      auto& r = recorded[s.cell_id];
      r.cell_id = s.cell_id;
      r.top_ids.push_back(s.raw.value("top_ids", json()));
      r.tokens_sha256 = request.value("tokens_sha256", "");
    }
  }
  // Else the first complete cell of the reference model, as a run from the start would take.
  auto first_kept_of = [&](const std::string& model) -> int64_t {
    for (const plan::Cell& c : cells) {
      auto it = plan->done.find(c.index);
      if (it != plan->done.end() && c.model.name == model) return it->second;
    }
    return 0;
  };
  // The full-vocabulary mode keeps no reference in the store: its reference worker starts anew.
  if (ex.kld && ex.kld->mode == config::KldMode::kTopK) {
    if (!kld_ref) kld_ref = first_kept_of(ex.kld->reference);
    auto it = recorded.find(kld_ref);
    if (it != recorded.end() && kept.count(kld_ref)) {
      if (it->second.tokens_sha256.empty()) {
        return InputError(fmt::format(
            "run {}'s kld reference (cell id {}) was recorded by a Pipette before store schema 2, "
            "without the hash of its tokens that the cells measured now are checked against: "
            "measure the experiment in a new run",
            plan->run_id, kld_ref));
      }
      plan->kld = it->second;
    }
  }
  if (ex.divergence_reference) {
    if (!gen_ref) gen_ref = first_kept_of(*ex.divergence_reference);
    if (kept.count(gen_ref)) plan->divergence_reference_cell_id = gen_ref;
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
