#include "pipette/metrics/items.h"

#include <algorithm>
#include <map>

#include "pipette/util/json_read.h"

namespace pipette::metrics {

McPick PickChoice(const std::vector<McChoice>& choices) {
  McPick p;
  double best = 0, best_norm = 0;
  for (size_t i = 0; i < choices.size(); ++i) {
    const double sum = choices[i].logprob;
    const double norm = sum / std::max<double>(1.0, static_cast<double>(choices[i].bytes));
    if (p.chosen < 0 || sum > best) {
      p.chosen = static_cast<int>(i);
      best = sum;
    }
    if (p.chosen_norm < 0 || norm > best_norm) {
      p.chosen_norm = static_cast<int>(i);
      best_norm = norm;
    }
  }
  return p;
}

std::vector<McChoice> McChoices(const nlohmann::json& raw) {
  std::vector<McChoice> out;
  // A stored sample is read type-checked (util/json_read.h): a value of another type reads as
  // absent, and a logprob that is not a number leaves the item with no choices (nothing picked,
  // not correct), never a throw.
  const nlohmann::json& choices = json_read::Ref(raw, "choices");
  if (!choices.is_array()) return out;
  for (const nlohmann::json& c : choices) {
    McChoice m;
    const nlohmann::json& logprob = json_read::Ref(c, "logprob");  // the sum, or each token's
    if (logprob.is_number()) {
      m.logprob = logprob.get<double>();
    } else if (logprob.is_array()) {
      for (const nlohmann::json& lp : logprob) {
        if (!lp.is_number()) return {};
        m.logprob += lp.get<double>();
      }
    } else if (!logprob.is_null()) {
      return {};
    }
    m.n_tokens = json_read::Int(c, "n_tokens").value_or(0);
    m.bytes = json_read::Int(c, "bytes").value_or(1);
    out.push_back(m);
  }
  return out;
}

std::vector<McItemRow> DeriveMcItems(const store::RunRecord& run,
                                     const std::vector<CellSamples>& cells,
                                     const std::vector<ResultRow>& rows) {
  std::map<int64_t, const ResultRow*> row_of_cell;
  for (const ResultRow& r : rows) row_of_cell.emplace(r.cell->cell_id, &r);
  std::vector<McItemRow> out;
  for (const CellSamples& c : cells) {
    if (c.cell.status == "superseded") continue;
    for (const store::SampleRecord& s : c.samples) {
      if (s.test != "mc" || !s.raw.is_object()) continue;
      McItemRow item;
      item.run_id = run.id;
      item.cell_id = c.cell.id;
      item.cell_index = c.cell.index;
      item.model = c.cell.model_name;
      if (auto it = row_of_cell.find(c.cell.id); it != row_of_cell.end()) {
        item.quant = it->second->cell->quant;
      }
      item.item = s.rep;
      item.id = json_read::String(s.raw, "id");
      item.language = json_read::String(s.raw, "language");
      item.task_type = json_read::String(s.raw, "task_type");
      const auto answer = json_read::Int(s.raw, "answer");
      item.answer = answer && *answer >= -1 && *answer <= 1 << 20 ? int(*answer) : -1;
      item.choices = McChoices(s.raw);
      item.pick = PickChoice(item.choices);
      item.correct = item.pick.chosen >= 0 && item.pick.chosen == item.answer;
      item.correct_norm = item.pick.chosen_norm >= 0 && item.pick.chosen_norm == item.answer;
      out.push_back(std::move(item));
    }
  }
  return out;
}

}  // namespace pipette::metrics
