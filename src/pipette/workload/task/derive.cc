#include "pipette/workload/task/derive.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "pipette/workload/proportions.h"
#include "pipette/workload/stored.h"
#include "pipette/workload/task/score.h"
#include "pipette/workload/task/template.h"

namespace pipette::workload::task {
namespace {

using nlohmann::json;

void AddTaskRows(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                 std::vector<metrics::ResultRow>* rows) {
  for (const auto& info : samples) {
    if (info.test != kInfoTest) continue;
    const std::string name = info.raw.value("task", "");
    const std::string headline = info.raw.value("metric", "");
    const auto metric = NormalisationNamed(headline);
    // A choice task's metrics are derived from its stored log-probabilities; a generation
    // task's items carry their verdicts (`ok`), one a metric the task_info sample lists.
    std::vector<std::string> names;
    if (metric) {
      for (Normalisation n : Normalisations()) names.push_back(MetricName(n));
    } else {
      names = info.raw.at("metrics").get<std::vector<std::string>>();
    }
    if (name.empty() || std::find(names.begin(), names.end(), headline) == names.end()) {
      throw json::type_error::create(302, "a task_info sample names no task or metric", &info.raw);
    }
    const std::string test = ItemTest(name);
    std::vector<Proportion> props;
    // A rotated task's items (docs/tasks.md "Choice rotation"), by the item they rotate, in order.
    struct Rotations {
      std::string group;
      bool all_right = true;
      std::set<size_t> picks;  // the original choices picked
    };
    std::map<std::string, Rotations> by_base;
    std::vector<std::string> bases;
    std::vector<Proportion> rotated;
    for (const auto& s : samples) {
      if (s.test != test) continue;
      Proportion p{"", s.raw.value("group", ""), {}};
      if (metric) {
        const auto item = ReadScoredItem(s.raw);
        if (!item) throw json::type_error::create(302, "a task item cannot be read", &s.raw);
        if (s.raw.contains("base")) {
          const size_t k = item->choices.size();
          const size_t r = s.raw.at("rotation").get<size_t>();
          const int pick = Pick(*item, *metric);
          const bool right = pick == item->gold;
          auto [it, fresh] = by_base.try_emplace(s.raw.at("base").get<std::string>());
          if (fresh) bases.push_back(it->first), it->second.group = p.task_type;
          it->second.all_right = it->second.all_right && right;
          it->second.picks.insert((size_t(pick) + r) % k);
          rotated.push_back({"", "slot:" + Letter(size_t(item->gold)), {{"acc_rotated", right}}});
          if (r != 0) continue;  // the other figures are of the original order
        }
        for (Normalisation n : Normalisations()) {
          p.ok[MetricName(n)] = Pick(*item, n) == item->gold;
        }
      } else {
        const json& ok = s.raw.at("ok");
        for (const std::string& m : names) p.ok[m] = ok.at(m).get<bool>();
      }
      p.ok["acc"] = p.ok[headline];
      props.push_back(std::move(p));
    }
    if (props.empty()) continue;
    names.insert(names.begin(), "acc");
    json dataset = {{"path", info.raw.value("definition", "")},
                    {"sha256", info.raw.value("items_sha256", "")}};
    AddProportionRows(base, test, dataset, props, names, rows);
    if (!by_base.empty()) {
      std::vector<Proportion> whole;
      for (const std::string& b : bases) {
        const Rotations& r = by_base[b];
        whole.push_back(
            {"", r.group, {{"acc_circular", r.all_right}, {"flip_rate", r.picks.size() > 1}}});
      }
      AddProportionRows(base, test, dataset, whole, {"acc_circular", "flip_rate"}, rows);
      AddProportionRows(base, test, dataset, rotated, {"acc_rotated"}, rows);
    }
  }
}

}  // namespace

std::string ItemTest(const std::string& task) { return "task:" + task; }

Status DeriveTasks(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                   std::vector<metrics::ResultRow>* rows) {
  return ReadStored("tasks", [&] { AddTaskRows(base, samples, rows); });
}

metrics::Headline TasksHeadline() {
  auto whole = [](const metrics::ResultRow& r) {
    return r.test.rfind("task:", 0) == 0 && r.subset.empty() && r.metric == "acc";
  };
  return {.column = "tasks acc [95% CI]",
          .order = 40,
          .shows = whole,
          .makes_line = whole,
          .text = [](const std::vector<const metrics::ResultRow*>& rows) {
            std::string out;
            for (const metrics::ResultRow* r : rows) {
              // The items it holds: a subset's interval is as wide as its count makes it.
              out += fmt::format("{}{} {:.1f}% [{:.1f}, {:.1f}] n={}", out.empty() ? "" : "; ",
                                 r->test.substr(5), 100 * r->value, 100 * r->ci_low.value_or(0),
                                 100 * r->ci_high.value_or(0), r->samples.size());
            }
            return out;
          }};
}

std::vector<metrics::FigureDef> TaskFigures() {
  using metrics::FigureKind, metrics::Better, metrics::ValueKind, metrics::Statistic;
  // `acc`, the task's own figure, is what its name alone names (a gate line "task:gsm8k: -1
  // point", a select constraint).
  return metrics::FigureList()
      .Add("task:<T>", {"acc"}, "fraction", FigureKind::kQuality, Better::kHigher,
           ValueKind::kProportion, Statistic::kOverItems)
      .Headline()
      .Score(metrics::ScoreGroup::kQuality, "<test>", Better::kHigher)
      .Add("task:<T>",
           {"acc_sum", "acc_per_token", "acc_per_char", "acc_per_byte", "acc_llama",
            "exact_match_strict", "exact_match_flexible", "pass_at_1", "acc_greedy", "acc_rotated",
            "acc_circular"},
           "fraction", FigureKind::kQuality, Better::kHigher, ValueKind::kProportion,
           Statistic::kOverItems)
      .Add("task:<T>", {"flip_rate"}, "fraction", FigureKind::kQuality, Better::kLower,
           ValueKind::kProportion, Statistic::kOverItems)
      .Take();
}

}  // namespace pipette::workload::task
