#include "pipette/compare/compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>

#include "pipette/util/strings.h"

namespace pipette::compare {
namespace {

using Key = std::vector<std::pair<std::string, std::string>>;

std::string Text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The key without the ignored properties, as one string, and its label.
std::string Joined(const Key& key, const std::set<std::string>& ignore) {
  std::string out;
  for (const auto& [name, value] : key) {
    if (ignore.count(name)) continue;
    if (!out.empty()) out += " ";
    out += name + "=" + value;
  }
  return out;
}

// A pair's key for people: the model by name, the ignored keys and the metric left out (the
// metric has a column of its own).
Key DisplayKey(const metrics::ResultRow& row, const std::set<std::string>& ignore) {
  Key out;
  for (auto [name, value] : PairingKey(row)) {
    if (ignore.count(name) || name == "metric") continue;
    if (name == "model") value = row.cell->model;
    out.emplace_back(name, value);
  }
  return out;
}

// Each figure's label: the keys whose values differ between the figures (the test always); the
// rest, shared by all, once.
void Label(Comparison& c) {
  std::map<std::string, std::set<std::string>> values;
  for (const FigureComparison& f : c.figures) {
    for (const auto& [name, value] : f.key) values[name].insert(value);
  }
  std::set<std::string> shared;
  for (const auto& [name, v] : values) {
    if (v.size() == 1 && name != "test") shared.insert(name);
  }
  for (FigureComparison& f : c.figures) {
    Key own, common;
    for (const auto& kv : f.key) (shared.count(kv.first) ? common : own).push_back(kv);
    f.label = Joined(own, {});
    if (c.common.empty()) c.common = Joined(common, {});
  }
}

// The gate line for a figure: one naming its test and metric ("tg128.throughput"), else its metric
// ("peak_rss"), else its test when the figure is the test's headline ("tg128").
const GateLine* GateFor(const metrics::ResultRow& row, const std::vector<GateLine>& gate) {
  for (const char* form : {"test.metric", "metric", "test"}) {
    for (const GateLine& g : gate) {
      const std::string f = form;
      if ((f == "test.metric" && g.figure == row.test + "." + row.metric) ||
          (f == "metric" && g.figure == row.metric) ||
          (f == "test" && g.figure == row.test && metrics::IsHeadline(row))) {
        return &g;
      }
    }
  }
  return nullptr;
}

}  // namespace

Key PairingKey(const metrics::ResultRow& row) {
  const metrics::CellFacts& c = *row.cell;
  Key key = {{"model", c.model_sha256.empty() ? c.model : c.model_sha256},
             {"quant", c.quant},
             {"runtime", c.runtime},
             {"runtime_version", c.runtime_version},
             {"device", c.device}};
  if (c.params.is_object()) {
    for (const auto& [name, value] : c.params.items()) key.emplace_back(name, Text(value));
  }
  key.emplace_back("test", row.test);
  key.emplace_back("metric", row.metric);
  if (!row.subset.empty()) key.emplace_back("subset", row.subset);
  return key;
}

std::optional<Direction> GoodDirection(const metrics::ResultRow& row) {
  if (row.unit == "t/s") return Direction::kHigherIsBetter;
  if (row.unit == "ms" || row.unit == "J/token") return Direction::kLowerIsBetter;
  static const std::set<std::string> kMemory = {"peak_rss", "rss_delta", "file_size",
                                                "kv_bytes_allocated", "kv_bytes_used"};
  if (row.unit == "bytes" && kMemory.count(row.metric)) return Direction::kLowerIsBetter;
  return std::nullopt;
}

Result<Comparison> Compare(const std::vector<metrics::ResultRow>& baseline,
                           const std::vector<metrics::ResultRow>& candidate,
                           const CompareOptions& options) {
  Comparison out;
  out.bootstrap = options.bootstrap;
  // Every key either side has: an ignored key must be one of them.
  std::set<std::string> names;
  for (const auto* side : {&baseline, &candidate}) {
    for (const auto& row : *side) {
      for (const auto& [name, value] : PairingKey(row)) names.insert(name);
    }
  }
  for (const std::string& k : options.ignore) {
    if (k == "metric" || k == "test" || !names.count(k)) {
      std::vector<std::string> allowed;
      for (const std::string& n : names) {
        if (n != "metric" && n != "test") allowed.push_back(n);
      }
      return InputError(fmt::format("--ignore {}: not a key the rows pair on ({}){}", k,
                                    fmt::format("{}", fmt::join(allowed, ", ")),
                                    DidYouMean(k, allowed)));
    }
    out.ignored.push_back(k);
  }

  // Each side's compared rows by joined key; a key held twice on a side is ambiguous.
  auto index = [&](const std::vector<metrics::ResultRow>& rows) {
    std::map<std::string, std::vector<const metrics::ResultRow*>> m;
    for (const auto& row : rows) {
      if (!GoodDirection(row) || !row.na_reason.empty()) continue;
      m[Joined(PairingKey(row), options.ignore)].push_back(&row);
    }
    return m;
  };
  const auto a = index(baseline), b = index(candidate);
  std::set<const GateLine*> used;
  for (const auto& [key, rows] : a) {
    auto it = b.find(key);
    if (it == b.end()) {
      out.baseline_only.push_back(key);
      continue;
    }
    if (rows.size() > 1 || it->second.size() > 1) {
      out.ambiguous.push_back(key);
      continue;
    }
    const metrics::ResultRow& base = *rows[0];
    const metrics::ResultRow& cand = *it->second[0];
    FigureComparison f;
    f.key = DisplayKey(base, options.ignore);
    f.test = base.test;
    f.metric = base.metric;
    f.unit = base.unit;
    const GateLine* g = GateFor(base, options.gate);
    double threshold = options.threshold;
    if (g) {
      used.insert(g);
      f.gate = *g;
      if (g->kind == GateLine::Kind::kRelative && g->limit != 0) threshold = std::fabs(g->limit);
    }
    f.change = CompareRatio(base.samples, cand.samples, *GoodDirection(base), threshold,
                            options.bootstrap);
    if (g && f.change.verdict == Verdict::kWorse &&
        PastLimit(*g, f.change.baseline_median, f.change.candidate_median)) {
      f.gate_failed = true;
      out.gate_failed = true;
    }
    out.figures.push_back(std::move(f));
  }
  for (const auto& [key, rows] : b) {
    if (!a.count(key)) out.candidate_only.push_back(key);
  }
  Label(out);
  for (const GateLine& g : options.gate) {
    if (used.count(&g)) continue;
    std::vector<std::string> figures;
    for (const auto& f : out.figures) {
      figures.push_back(f.metric);
      figures.push_back(f.test);
    }
    return ErrorAt({options.gate_file, g.line, 1},
                   fmt::format("'{}' names no figure this comparison has{}", g.figure,
                               DidYouMean(g.figure, figures)),
                   2);
  }
  return out;
}

}  // namespace pipette::compare
