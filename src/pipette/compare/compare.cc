#include "pipette/compare/compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <numeric>
#include <regex>

#include "pipette/stats/stats.h"
#include "pipette/util/json_text.h"
#include "pipette/util/strings.h"

namespace pipette::compare {
namespace {

std::string Joined(const Key& key) {
  std::string out;
  for (const auto& [name, value] : key) {
    if (!out.empty()) out += " ";
    out += name + "=" + value;
  }
  return out;
}

Key Without(const Key& key, const std::set<std::string>& ignore) {
  Key out;
  for (const auto& kv : key) {
    if (!ignore.count(kv.first)) out.push_back(kv);
  }
  return out;
}

// A pair's key for people: the model by name, the ignored keys and the metric left out (the
// metric has a column of its own).
Key DisplayKey(const metrics::ResultRow& row, const std::set<std::string>& ignore,
               const metrics::FigureCatalogue& figures) {
  Key out;
  for (auto [name, value] : PairingKey(row, figures)) {
    if (ignore.count(name) || name == "metric") continue;
    if (name == "model") value = row.cell->model;
    out.emplace_back(name, value);
  }
  return out;
}

// An unpaired or uncompared figure, described in full.
std::string Describe(const metrics::ResultRow& row, const std::set<std::string>& ignore,
                     const metrics::FigureCatalogue& figures) {
  return Joined(DisplayKey(row, ignore, figures)) + " metric=" + row.metric;
}

// Each figure's label: the keys whose value is not the same in every figure (the test always);
// the rest, shared by all, once.
void Label(Comparison& c) {
  std::map<std::string, std::set<std::string>> values;
  std::map<std::string, size_t> held;
  for (const FigureComparison& f : c.figures) {
    for (const auto& [name, value] : f.key) {
      values[name].insert(value);
      ++held[name];
    }
  }
  std::set<std::string> shared;
  for (const auto& [name, v] : values) {
    if (v.size() == 1 && held[name] == c.figures.size() && name != "test") shared.insert(name);
  }
  for (FigureComparison& f : c.figures) {
    Key own, common;
    for (const auto& kv : f.key) (shared.count(kv.first) ? common : own).push_back(kv);
    f.label = Joined(own);
    if (c.common.empty()) c.common = Joined(common);
  }
}

// The most specific line for the row; every line naming it counts as used.
const GateLine* GateFor(const metrics::FigureCatalogue& figures, const metrics::ResultRow& row,
                        const std::vector<GateLine>& gate, std::set<const GateLine*>* used) {
  const GateLine* best = nullptr;
  int best_match = 0;
  for (const GateLine& g : gate) {
    const int m = FigureNameMatch(g.figure, row, figures);
    if (m == 0) continue;
    used->insert(&g);
    if (m > best_match) {
      best = &g;
      best_match = m;
    }
  }
  return best;
}

// A gate line must allow a change the bad way only, and "point" only for a proportion.
Status CheckLine(const GateLine& g, const metrics::ResultRow& row, const Rule& rule,
                 const std::string& file) {
  const bool higher = rule.direction == Direction::kHigherIsBetter;
  if (g.negative != higher) {
    const std::string magnitude = g.text.substr(1);
    return ErrorAt(
        {file, g.line, g.change_column},
        fmt::format("'{}: {}': {} gets better as it {}; its limit says how far it may {}: "
                    "write {}{}",
                    g.figure, g.text, g.figure, higher ? "rises" : "falls",
                    higher ? "fall" : "rise", higher ? "-" : "+", magnitude),
        2);
  }
  if (g.point && !rule.proportion) {
    return ErrorAt(
        {file, g.line, g.change_column},
        fmt::format("'{}: {}': a point is a percentage point of a proportion (acc, "
                    "format_ok); give {}'s limit in % ({}3%) or as a plain number in {} ({}2)",
                    g.figure, g.text, g.figure, g.negative ? "-" : "+",
                    row.unit.empty() ? "its unit" : row.unit, g.negative ? "-" : "+"),
        2);
  }
  return {};
}

// The figure over the given units: the geometric mean (of the chunks' perplexities: the corpus's
// when chunks score alike many tokens), or the mean (a proportion, a mean KL).
double Statistic(bool geometric_mean, std::span<const double> v, std::span<const size_t> idx) {
  double s = 0;
  if (geometric_mean) {
    for (size_t i : idx) s += std::log(v[i]);
    return std::exp(s / double(idx.size()));
  }
  for (size_t i : idx) s += v[i];
  return s / double(idx.size());
}

Change CompareRows(const metrics::ResultRow& base, const metrics::ResultRow& cand, const Rule& rule,
                   const GateLine* g, const CompareOptions& options) {
  if (rule.of == Change::Of::kRatio) {
    double threshold = options.threshold;
    if (g && g->kind == GateLine::Kind::kRelative && g->limit != 0) threshold = std::fabs(g->limit);
    return CompareRatio(base.samples, cand.samples, rule.direction, threshold, options.bootstrap,
                        rule.measured_once);
  }
  auto statistic = [&](std::span<const double> v, std::span<const size_t> idx) {
    return Statistic(rule.geometric_mean, v, idx);
  };
  std::vector<size_t> all(base.samples.size());
  std::iota(all.begin(), all.end(), size_t{0});
  const double base_value = base.samples.empty() ? 0 : statistic(base.samples, all);
  double threshold =
      rule.proportion ? options.proportion_threshold : options.threshold * std::fabs(base_value);
  if (g && g->limit != 0) {
    threshold = g->kind == GateLine::Kind::kRelative ? std::fabs(g->limit * base_value)
                                                     : std::fabs(g->limit);
  }
  Change c = CompareDifference(base.samples, cand.samples, statistic, rule.direction, threshold,
                               options.bootstrap);
  if (base.dataset_sha256 != cand.dataset_sha256) {
    c.verdict = Verdict::kTooNoisy;
    c.interval.reset();
    c.why = "the sides scored different data (the datasets' SHA-256 differ): nothing pairs";
  }
  return c;
}

// Why a side's figure holds no valid sample to compare ("" when it does): none at all (a JSON
// report's empty list), or one that is not a finite number (a report's null).
std::string NoValidSample(const metrics::ResultRow& row) {
  if (row.samples.empty()) return "it holds no sample";
  for (double v : row.samples) {
    if (!std::isfinite(v)) return "a sample is not a finite number";
  }
  return "";
}

// Whether the two rows are the very same cell's figure: the same run and cell, and the same
// samples (one store, or a report of it, compared with itself).
bool SameCell(const metrics::ResultRow& a, const metrics::ResultRow& b) {
  return a.cell->run_id == b.cell->run_id && a.cell->cell_index == b.cell->cell_index &&
         a.cell->model_sha256 == b.cell->model_sha256 && a.samples == b.samples;
}

// The untrusted warnings of the two sides' cells, each side named; "" when neither has one.
std::string Untrusted(const metrics::ResultRow& base, const metrics::ResultRow* cand) {
  std::string out;
  if (!base.cell->untrusted.empty()) out = "baseline: " + base.cell->untrusted;
  if (cand && !cand->cell->untrusted.empty()) {
    out += (out.empty() ? "" : "; ") + std::string("candidate: ") + cand->cell->untrusted;
  }
  return out;
}

// Whether the change's interval lies within the line's limit at its bad end: the figure, with
// 95% confidence, is not worse past the limit (a verdict of "too noisy" that still decides the
// line).
bool IntervalWithinLimit(const GateLine& g, const Change& c, const Rule& rule) {
  if (!c.interval) return false;
  const bool higher = rule.direction == Direction::kHigherIsBetter;
  const double end = higher ? c.interval->low : c.interval->high;
  const double candidate = c.of == Change::Of::kRatio ? c.baseline * end : c.baseline + end;
  return !PastLimit(g, c.baseline, candidate);
}

// A compared figure held against its gate line: failed, passed, or undecided with why.
void Decide(FigureComparison& f, const GateLine& g, const Rule& rule) {
  const Change& c = f.change;
  if (f.same_cells) {
    f.gate_inconclusive = "the same cells on both sides: a figure compared with itself";
  } else if (!f.untrusted.empty()) {
    f.gate_inconclusive = "measured under a warning (" + f.untrusted + ")";
  } else if (c.verdict == Verdict::kWorse) {
    f.gate_failed = PastLimit(g, c.baseline, c.candidate);
  } else if (c.verdict == Verdict::kTooNoisy && !IntervalWithinLimit(g, c, rule)) {
    f.gate_inconclusive =
        c.interval
            ? "too noisy: " + c.why
            : (c.why.rfind("fewer than", 0) == 0 ? "too few samples: " : "no verdict: ") + c.why;
  }
}

}  // namespace

std::string GateOutcomeName(GateOutcome o) {
  switch (o) {
    case GateOutcome::kPassed:
      return "passed";
    case GateOutcome::kFailed:
      return "failed";
    case GateOutcome::kInconclusive:
      return "inconclusive";
  }
  return "?";
}

std::optional<GateOutcome> OutcomeOf(const Comparison& c) {
  if (!c.gated) return std::nullopt;
  if (c.gate_failed) return GateOutcome::kFailed;
  if (c.gate_inconclusive) return GateOutcome::kInconclusive;
  return GateOutcome::kPassed;
}

Key CellKey(const metrics::ResultRow& row) {
  const metrics::CellFacts& c = *row.cell;
  Key key = {{"model", c.model_sha256.empty() ? c.model : c.model_sha256},
             {"quant", c.quant},
             {"runtime", c.runtime},
             {"runtime_version", c.runtime_version},
             {"device", c.device}};
  if (c.params.is_object()) {
    for (const auto& [name, value] : c.params.items()) key.emplace_back(name, JsonText(value));
  }
  return key;
}

Key PairingKey(const metrics::ResultRow& row, const metrics::FigureCatalogue& figures) {
  Key key = CellKey(row);
  key.emplace_back("test", row.test);
  key.emplace_back("metric", row.metric);
  if (!row.subset.empty()) key.emplace_back("subset", figures.PairingSubset(row));
  return key;
}

int FigureNameMatch(const std::string& name, const metrics::ResultRow& row,
                    const metrics::FigureCatalogue& figures) {
  if (name == row.test + "." + row.metric || name == row.test + "_" + row.metric) return 3;
  if (name == row.metric) return 2;
  if (name == row.test && figures.IsHeadline(row)) return 1;
  return 0;
}

bool AlwaysPaired(const std::string& key) {
  return key == "test" || key == "metric" || key == "subset";
}

std::optional<Rule> RuleFor(const metrics::FigureDef* def) {
  if (!def || def->better == metrics::Better::kNotJudged) return std::nullopt;
  Rule r;
  r.direction = def->better == metrics::Better::kHigher ? Direction::kHigherIsBetter
                                                        : Direction::kLowerIsBetter;
  if (def->kind == metrics::FigureKind::kQuality) {
    r.of = Change::Of::kDifference;
    r.proportion = def->values == metrics::ValueKind::kProportion;
  }
  r.measured_once = def->statistic == metrics::Statistic::kMeasuredOnce;
  r.geometric_mean = def->statistic == metrics::Statistic::kGeoMeanOverItems;
  return r;
}

Result<Comparison> Compare(const metrics::FigureCatalogue& figures,
                           const std::vector<metrics::ResultRow>& baseline,
                           const std::vector<metrics::ResultRow>& candidate,
                           const CompareOptions& options) {
  Comparison out;
  out.bootstrap = options.bootstrap;
  out.gated = !options.gate.empty();
  // Every key either side has: an ignored or paired-on key must be one of them.
  std::set<std::string> names;
  for (const auto* side : {&baseline, &candidate}) {
    for (const auto& row : *side) {
      for (const auto& [name, value] : PairingKey(row, figures)) names.insert(name);
    }
  }
  std::vector<std::string> allowed;
  for (const std::string& n : names) {
    if (!AlwaysPaired(n)) allowed.push_back(n);
  }
  auto check = [&](const char* flag, const std::string& k) -> Status {
    if (AlwaysPaired(k) || !names.count(k)) {
      return InputError(fmt::format("{} {}: not a key the rows pair on ({}){}", flag, k,
                                    fmt::format("{}", fmt::join(allowed, ", ")),
                                    DidYouMean(k, allowed)));
    }
    return {};
  };
  if (!options.ignore.empty() && !options.pair_on.empty()) {
    return InputError("give --pair-on or --ignore, not both");
  }
  std::set<std::string> ignore;
  for (const std::string& k : options.ignore) {
    if (Status st = check("--ignore", k); !st) return st.error();
    ignore.insert(k);
  }
  if (!options.pair_on.empty()) {
    for (const std::string& k : options.pair_on) {
      if (Status st = check("--pair-on", k); !st) return st.error();
    }
    for (const std::string& k : allowed) {
      if (!options.pair_on.count(k)) ignore.insert(k);
    }
  }
  out.ignored.assign(ignore.begin(), ignore.end());

  // Each side's comparable rows (n/a ones too) by key without the ignored properties.
  auto index = [&](const std::vector<metrics::ResultRow>& rows) {
    std::map<Key, std::vector<const metrics::ResultRow*>> m;
    for (const auto& row : rows) {
      if (RuleFor(figures.Of(row)) || !row.na_reason.empty())
        m[Without(PairingKey(row, figures), ignore)].push_back(&row);
    }
    return m;
  };
  const auto a = index(baseline), b = index(candidate);
  std::set<const GateLine*> used;
  for (const auto& [key, rows] : a) {
    const metrics::ResultRow& base = *rows[0];
    const std::string described = Describe(base, ignore, figures);
    auto it = b.find(key);
    const metrics::ResultRow* cand =
        it != b.end() && it->second.size() == 1 ? it->second[0] : nullptr;
    std::set<const GateLine*> matched;
    const GateLine* g = GateFor(figures, base, options.gate, &matched);
    used.insert(matched.begin(), matched.end());
    FigureComparison f;
    f.key = DisplayKey(base, ignore, figures);
    f.test = base.test;
    f.metric = base.metric;
    f.unit = base.unit;
    if (g) f.gate = *g;
    // A figure that cannot be compared: listed; when a gate line covers it, shown with why, and
    // the line fails (`fails`: the candidate cannot show the figure) or is undecided (the
    // baseline has nothing to hold it against).
    auto uncompared = [&](const std::string& why, bool fails) {
      if (!g) {
        out.not_compared.push_back(described + ": " + why);
        return;
      }
      f.missing = why;
      f.change.why = why;
      if (fails) {
        f.gate_failed = true;
      } else {
        f.gate_inconclusive = "missing on one side: " + why;
      }
      out.figures.push_back(std::move(f));
    };
    if (rows.size() > 1 || (it != b.end() && it->second.size() > 1)) {
      uncompared("held by more than one row of a side", true);
      continue;
    }
    if (!base.na_reason.empty()) {
      // n/a on both sides (energy where neither side has a meter) is no news.
      const bool both_na = cand && !cand->na_reason.empty();
      if (g || !both_na) uncompared("n/a in the baseline: " + base.na_reason, false);
      continue;
    }
    const std::optional<Rule> rule = RuleFor(figures.Of(base));
    if (g) {
      if (Status st = CheckLine(*g, base, *rule, options.gate_file); !st) return st.error();
    }
    if (const std::string none = NoValidSample(base); !none.empty()) {
      uncompared("no valid figure in the baseline: " + none, false);
      continue;
    }
    std::string cand_missing;
    if (!cand) {
      cand_missing = "the candidate has no such figure";
    } else if (!cand->na_reason.empty()) {
      cand_missing = "n/a in the candidate: " + cand->na_reason;
    } else if (const std::string none = NoValidSample(*cand); !none.empty()) {
      cand_missing = "no valid figure in the candidate: " + none;
    }
    if (!cand_missing.empty()) {
      if (!g) {
        (cand ? out.not_compared : out.baseline_only)
            .push_back(cand ? described + ": " + cand_missing : described);
        continue;
      }
      // A figure a gate line covers that the candidate cannot show: the gate fails.
      f.missing = cand_missing;
      f.change.why = cand_missing;
      f.change.of = rule->of;
      f.change.baseline_n = base.samples.size();
      // The baseline's figure as it would have been compared: a quality figure over every unit
      // (the row's value: a proportion, ppl, kld_mean), else the median of the samples.
      if (rule->of == Change::Of::kDifference) {
        f.change.baseline = base.value;
      } else {
        f.change.baseline = stats::Median(base.samples);
      }
      f.untrusted = Untrusted(base, nullptr);
      f.gate_failed = true;
      out.figures.push_back(std::move(f));
      continue;
    }
    f.change = CompareRows(base, *cand, *rule, g, options);
    f.same_cells = SameCell(base, *cand);
    f.untrusted = Untrusted(base, cand);
    if (g) Decide(f, *g, *rule);
    out.figures.push_back(std::move(f));
  }
  for (const FigureComparison& f : out.figures) {
    out.gate_failed = out.gate_failed || f.gate_failed;
    out.gate_inconclusive = out.gate_inconclusive || !f.gate_inconclusive.empty();
    if (f.same_cells) ++out.same_cells;
  }
  for (const auto& [key, rows] : b) {
    if (!a.count(key) && rows[0]->na_reason.empty()) {
      out.candidate_only.push_back(Describe(*rows[0], ignore, figures));
    }
  }
  Label(out);
  for (const GateLine& g : options.gate) {
    if (used.count(&g)) continue;
    std::vector<std::string> known;
    for (const auto& f : out.figures) {
      known.push_back(f.metric);
      known.push_back(f.test);
      known.push_back(f.test + "_" + f.metric);
    }
    return ErrorAt({options.gate_file, g.line, 1},
                   fmt::format("'{}' names no figure this comparison has{}", g.figure,
                               DidYouMean(g.figure, known)),
                   2);
  }
  return out;
}

}  // namespace pipette::compare
