#include "pipette/workload/mc/derive.h"

#include <fmt/format.h>

#include "pipette/metrics/items.h"
#include "pipette/util/json_read.h"
#include "pipette/workload/proportions.h"
#include "pipette/workload/stored.h"

namespace pipette::workload {
namespace {

using nlohmann::json;

// Multiple choice: for each item, each choice's summed log-probability; acc picks the highest
// sum, acc_norm the highest sum per UTF-8 byte of the choice (first on ties). Rows for the whole
// set, per language, per task type and per language and task type, with Wilson intervals.
void AddMcRows(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
               std::vector<metrics::ResultRow>* rows) {
  const json* info = nullptr;
  std::vector<Proportion> props;
  for (const auto& s : samples) {
    if (s.test == "mc_dataset") info = &s.raw;
    if (s.test != "mc") continue;
    const metrics::McPick pick = metrics::PickChoice(metrics::McChoices(s.raw));
    // An answer of another type makes the stored data unreadable (the workload's n/a row); a
    // number out of any choice's range is no answer, never converted past int.
    const json& stored = json_read::Ref(s.raw, "answer");
    if (!stored.is_null() && !stored.is_number()) {
      throw json::type_error::create(302, "an mc answer is not a number", &stored);
    }
    const auto index = json_read::AsInt(stored);
    const int answer = index && *index >= -1 && *index <= 1 << 20 ? int(*index) : -1;
    props.push_back({s.raw.value("language", ""),
                     s.raw.value("task_type", ""),
                     // no pick (no choices) is never right, whatever `answer` says
                     {{"acc", pick.chosen >= 0 && pick.chosen == answer},
                      {"acc_norm", pick.chosen_norm >= 0 && pick.chosen_norm == answer}}});
  }
  if (!info) return;
  AddProportionRows(base, "mc", *info, props, {"acc", "acc_norm"}, rows);
  AddDensityRows(base, "mc", *info, samples, rows);
}

}  // namespace

Status DeriveMc(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                std::vector<metrics::ResultRow>* rows) {
  return ReadStored("mc", [&] { AddMcRows(base, samples, rows); });
}

metrics::Headline McHeadline() {
  auto all_items = [](const metrics::ResultRow& r) { return r.test == "mc" && r.subset.empty(); };
  return {.column = "mc acc [95% CI]",
          .order = 20,
          .shows = [=](const metrics::ResultRow& r) { return all_items(r) && r.metric == "acc"; },
          .makes_line = all_items,
          .text =
              [](const std::vector<const metrics::ResultRow*>& rows) {
                const metrics::ResultRow* r = rows.back();
                return fmt::format("{:.1f}% [{:.1f}, {:.1f}]", 100 * r->value,
                                   100 * r->ci_low.value_or(0), 100 * r->ci_high.value_or(0));
              }};
}

std::vector<metrics::FigureDef> McFigures() {
  using metrics::FigureKind, metrics::Better, metrics::ValueKind, metrics::Statistic;
  return metrics::FigureList()
      .Add("mc", {"acc"}, "fraction", FigureKind::kQuality, Better::kHigher, ValueKind::kProportion,
           Statistic::kOverItems)
      .Score(metrics::ScoreGroup::kQuality, "mc_acc", Better::kHigher)
      .Vary("mc acc")
      .Add("mc", {"acc_norm"}, "fraction", FigureKind::kQuality, Better::kHigher,
           ValueKind::kProportion, Statistic::kOverItems)
      .Add("mc", {"tok_per_kchar"}, "tokens/kchar", FigureKind::kQuality, Better::kNotJudged,
           ValueKind::kAmount, Statistic::kOverItems)
      .Take();
}

}  // namespace pipette::workload
