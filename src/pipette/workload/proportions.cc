#include "pipette/workload/proportions.h"

#include <algorithm>

#include "pipette/quality/ppl.h"
#include "pipette/util/json_read.h"

namespace pipette::workload {

using nlohmann::json;

// Rows for the whole set, per language, per task type and per both, with Wilson intervals; the
// per-item 0/1 outcomes are the samples.
void AddProportionRows(const metrics::ResultRow& base, const std::string& test, const json& info,
                       const std::vector<Proportion>& items,
                       const std::vector<std::string>& metrics,
                       std::vector<metrics::ResultRow>* rows) {
  auto in_subset = [](const Proportion& o, const std::string& sub) {
    return sub.empty() || sub == o.language || sub == o.task_type ||
           sub == o.language + "/" + o.task_type;
  };
  std::vector<std::string> subsets = {""};
  for (const auto& o : items) {
    for (const std::string& sub : {o.language, o.task_type, o.language + "/" + o.task_type}) {
      if (sub.empty() || sub.front() == '/' || sub.back() == '/') continue;
      if (std::find(subsets.begin(), subsets.end(), sub) == subsets.end()) subsets.push_back(sub);
    }
  }
  for (const std::string& sub : subsets) {
    for (const std::string& metric : metrics) {
      int64_t n = 0, k = 0;
      std::vector<double> per_item;
      for (const auto& o : items) {
        if (!in_subset(o, sub)) continue;
        const bool ok = o.ok.at(metric);
        ++n;
        k += ok;
        per_item.push_back(ok ? 1.0 : 0.0);
      }
      if (n == 0) continue;
      metrics::ResultRow r = base;
      r.test = test;
      r.metric = metric;
      r.unit = "fraction";
      r.subset = sub;
      r.dataset = info.value("path", "");
      r.dataset_sha256 = info.value("sha256", "");
      r.value = double(k) / double(n);
      const stats::Interval ci = stats::Wilson(k, n);
      r.ci_low = ci.low;
      r.ci_high = ci.high;
      r.samples = per_item;
      r.summary.n = size_t(n);
      r.summary.median = r.summary.mean = r.summary.min = r.summary.max = r.value;
      rows->push_back(std::move(r));
    }
  }
}

// tok_per_kchar of a dataset's own item texts, for all items ("") and per language.
void AddDensityRows(const metrics::ResultRow& base, const std::string& test, const json& info,
                    const std::vector<store::SampleRecord>& samples,
                    std::vector<metrics::ResultRow>* rows) {
  // tokens, chars: summed as doubles (exact for any real count; a stored count past int64 or of
  // another type reads as absent, and its item is left out)
  std::map<std::string, std::pair<double, double>> by_subset;
  for (const auto& s : samples) {
    if (s.test != test || !s.raw.contains("text_tokens")) continue;
    const json& meta = s.raw.contains("item") ? s.raw["item"] : s.raw;
    std::vector<std::string> subsets = {""};
    if (!meta.value("language", "").empty()) subsets.push_back(meta.value("language", ""));
    const std::optional<int64_t> tokens = json_read::Int(s.raw, "text_tokens");
    const std::optional<int64_t> chars = json_read::Int(s.raw, "text_chars");
    if (!tokens || !chars || *tokens < 0 || *chars < 0) continue;
    for (const std::string& sub : subsets) {
      by_subset[sub].first += double(*tokens);
      by_subset[sub].second += double(*chars);
    }
  }
  for (const auto& [subset, tc] : by_subset) {
    if (tc.second <= 0) continue;
    metrics::ResultRow r = base;
    r.test = test;
    r.metric = "tok_per_kchar";
    r.unit = "tokens/kchar";
    r.subset = subset;
    r.dataset = info.value("path", "");
    r.dataset_sha256 = info.value("sha256", "");
    r.value = quality::TokensPerKchar(tc.first, tc.second);
    r.samples = {r.value};
    r.summary = stats::Summarize(r.samples);
    rows->push_back(std::move(r));
  }
}

}  // namespace pipette::workload
