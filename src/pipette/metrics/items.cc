#include "pipette/metrics/items.h"

#include <algorithm>
#include <map>

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
  for (const nlohmann::json& c : raw.value("choices", nlohmann::json::array())) {
    McChoice m;
    for (const nlohmann::json& lp : c.value("logprob", nlohmann::json::array())) {
      m.logprob += lp.get<double>();
    }
    m.n_tokens = c.value("n_tokens", int64_t{0});
    m.bytes = c.value("bytes", int64_t{1});
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
      item.id = s.raw.value("id", "");
      item.language = s.raw.value("language", "");
      item.task_type = s.raw.value("task_type", "");
      item.answer = s.raw.value("answer", -1);
      item.choices = McChoices(s.raw);
      item.pick = PickChoice(item.choices);
      item.correct = item.pick.chosen == item.answer;
      item.correct_norm = item.pick.chosen_norm == item.answer;
      out.push_back(std::move(item));
    }
  }
  return out;
}

}  // namespace pipette::metrics
