#include "pipette/metrics/row_builder.h"

#include "pipette/stats/stats.h"

namespace pipette::metrics {

void RowBuilder::Add(const std::string& test, const std::string& metric, const std::string& unit,
                     double v, const std::string& subset) {
  auto key = test + "\x1f" + metric + "\x1f" + subset;
  auto it = index_.find(key);
  if (it == index_.end()) {
    it = index_.emplace(key, entries_.size()).first;
    entries_.push_back({test, metric, unit, subset, {}});
  }
  entries_[it->second].values.push_back(v);
}

bool RowBuilder::Has(const std::string& test, const std::string& metric) const {
  for (const Entry& e : entries_) {
    if (e.test == test && e.metric == metric) return true;
  }
  return false;
}

void RowBuilder::AppendRows(const ResultRow& base, std::vector<ResultRow>* rows) const {
  for (const Entry& e : entries_) {
    ResultRow r = base;
    r.test = e.test;
    r.metric = e.metric;
    r.unit = e.unit;
    r.subset = e.subset;
    r.samples = e.values;
    r.summary = stats::Summarize(e.values);
    r.value = r.summary.median;
    rows->push_back(std::move(r));
  }
}

ResultRow NaRow(const ResultRow& base, std::string test, std::string metric, std::string unit,
                std::string why) {
  ResultRow r = base;
  r.test = std::move(test);
  r.metric = std::move(metric);
  r.unit = std::move(unit);
  r.na_reason = std::move(why);
  return r;
}

}  // namespace pipette::metrics
