#include "pipette/workload/mc/derive.h"

#include "pipette/metrics/items.h"
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
    const int answer = s.raw.value("answer", -1);
    props.push_back({s.raw.value("language", ""),
                     s.raw.value("task_type", ""),
                     {{"acc", pick.chosen == answer}, {"acc_norm", pick.chosen_norm == answer}}});
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

}  // namespace pipette::workload
