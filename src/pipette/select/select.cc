#include "pipette/select/select.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "pipette/compare/compare.h"
#include "pipette/util/strings.h"

namespace pipette::select {
namespace {

using metrics::ResultRow;

struct Pool {
  Candidate out;
  const metrics::CellFacts* facts = nullptr;
  std::vector<const ResultRow*> rows;
  bool vetoed = false;
};

std::string Text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The unit a constraint's bound says, as a row's unit.
std::string UnitOf(Constraint::Kind k) {
  switch (k) {
    case Constraint::Kind::kBytes:
      return "bytes";
    case Constraint::Kind::kTime:
      return "ms";
    case Constraint::Kind::kRate:
      return "t/s";
    case Constraint::Kind::kFraction:
      return "fraction";
    case Constraint::Kind::kPlain:
      return "";
  }
  return "";
}

// The row a constraint reads among a cell's rows (the whole set's, not a language's), or none.
Result<const ResultRow*> Read(const Constraint& c, const std::vector<const ResultRow*>& rows) {
  int best = 0;
  std::vector<const ResultRow*> found;
  for (const ResultRow* r : rows) {
    if (!r->subset.empty() && r->test != "kld") continue;
    const int m = compare::FigureNameMatch(c.figure, *r);
    if (m == 0 || m < best) continue;
    if (m > best) found.clear();
    best = m;
    found.push_back(r);
  }
  if (found.empty()) return static_cast<const ResultRow*>(nullptr);
  if (found.size() > 1) {
    std::vector<std::string> names;
    for (const ResultRow* r : found) names.push_back(r->test + "." + r->metric);
    return ErrorAt({c.file, c.line, c.column},
                   fmt::format("'{}': '{}' names several figures of a cell ({}): name one as "
                               "test.metric",
                               c.text, c.figure, fmt::join(names, ", ")),
                   2);
  }
  const ResultRow* r = found[0];
  if (c.kind != Constraint::Kind::kPlain && r->na_reason.empty() && r->unit != UnitOf(c.kind)) {
    return ErrorAt({c.file, c.line, c.column},
                   fmt::format("'{}': {} is in {}, the bound in {}", c.text, c.figure,
                               r->unit.empty() ? "no unit" : r->unit, UnitOf(c.kind)),
                   2);
  }
  return r;
}

// By how much `value` breaks the constraint, in the figure's unit.
std::string By(const Constraint& c, double value) {
  const double gap = std::fabs(value - c.bound);
  const char* way = value > c.bound ? "over" : "under";
  switch (c.kind) {
    case Constraint::Kind::kBytes:
      return fmt::format("{} {}", FormatBytes(gap), way);
    case Constraint::Kind::kTime:
      return fmt::format("{:.0f} ms {}", gap, way);
    case Constraint::Kind::kRate:
      return fmt::format("{:.1f} t/s {}", gap, way);
    case Constraint::Kind::kFraction:
      return fmt::format("{:.1f} points {}", gap * 100, way);
    case Constraint::Kind::kPlain:
      return fmt::format("{:.4g} {}", gap, way);
  }
  return "";
}

// The figures a cell is scored on, by group (docs/running.md "Choosing a configuration").
std::vector<Scored> Figures(const Pool& p) {
  std::vector<Scored> out;
  auto add = [&](std::string name, Group g, bool higher, double v) {
    if (std::isfinite(v)) out.push_back({std::move(name), g, higher, v, 0});
  };
  double noise = -1;
  for (const ResultRow* r : p.rows) {
    if (!r->na_reason.empty()) continue;
    const bool all = r->subset.empty();
    if (all && r->test == "mc" && r->metric == "acc")
      add("mc_acc", Group::kQuality, true, r->value);
    if (all && r->test == "gen" && (r->metric == "format_ok" || r->metric == "task_acc")) {
      add("gen_" + r->metric, Group::kQuality, true, r->value);
    }
    if (r->test == "ppl" && r->metric == "ppl") add("ppl", Group::kQuality, false, r->value);
    if (r->test == "kld" && r->metric == "kld_mean")
      add("kld_mean", Group::kQuality, false, r->value);
    const bool headline = metrics::IsHeadline(*r);
    if (headline && (metrics::IsSpeedTest("tg", r->test) || metrics::IsSpeedTest("pp", r->test))) {
      add(r->test, Group::kEfficiency, true, r->value);
    }
    if (headline && r->metric == "ttft") add(r->test, Group::kEfficiency, false, r->value);
    if (r->metric == "peak_rss") add("peak_rss", Group::kEfficiency, false, r->value);
    if (r->unit == "J/token") add(r->test + ".energy", Group::kEfficiency, false, r->value);
    if (headline && r->summary.n >= 2) noise = std::max(noise, r->summary.cv);
    if (r->metric == "decay") add(r->test + ".decay", Group::kRobustness, false, r->value);
    if (r->test == "load" && r->metric == "time")
      add("load_time", Group::kEngineering, false, r->value);
    if (r->test == "model" && r->metric == "file_size") {
      add("file_size", Group::kEngineering, false, r->value);
    }
  }
  if (noise >= 0) add("noise", Group::kRobustness, false, noise);
  const bool failed = p.facts->cell_status == "failed" || p.facts->cell_status == "oom";
  add("failures", Group::kRobustness, false, failed ? 1 : 0);
  // Steps between the file one downloads and the one that ran: a variant Pipette quantized (and
  // its importance matrix, if one was made).
  double steps = 0;
  if (p.facts->provenance.is_object()) {
    steps = 1;
    if (p.facts->provenance.contains("imatrix") && !p.facts->provenance["imatrix"].is_null()) {
      steps += 1;
    }
  }
  add("conversion_steps", Group::kEngineering, false, steps);
  return out;
}

// Names for people: the model, quantization and runtime, and the parameters whose values tell
// candidates apart; unique (a cell's place added where two would read alike).
void Name(std::vector<Pool>& pool) {
  std::map<std::string, std::set<std::string>> values;
  for (const Pool& p : pool) {
    if (!p.facts->params.is_object()) continue;
    for (const auto& [k, v] : p.facts->params.items()) values[k].insert(Text(v));
  }
  std::map<std::string, int> seen;
  for (Pool& p : pool) {
    std::string name = fmt::format("{} {} {}", p.facts->model, p.facts->quant, p.facts->runtime);
    if (p.facts->params.is_object()) {
      for (const auto& [k, v] : p.facts->params.items()) {
        if (values[k].size() > 1) name += fmt::format(" {}={}", k, Text(v));
      }
    }
    p.out.name = name;
    ++seen[name + "\n" + p.out.device];
  }
  for (Pool& p : pool) {
    if (seen[p.out.name + "\n" + p.out.device] > 1) {
      p.out.name += fmt::format(" (run {} cell {})", p.out.run_id, p.out.cell);
    }
  }
}

void Score(std::vector<Pool*>& live, std::array<bool, kGroups>& used, const Weights& w) {
  // Each figure scaled over the candidates that have it, in its good direction.
  std::map<std::string, std::pair<double, double>> range;  // name -> (min, max)
  for (Pool* p : live) {
    for (const Scored& f : p->out.figures) {
      auto [it, fresh] = range.emplace(f.name, std::make_pair(f.value, f.value));
      if (!fresh) {
        it->second.first = std::min(it->second.first, f.value);
        it->second.second = std::max(it->second.second, f.value);
      }
      used[size_t(f.group)] = true;
    }
  }
  const std::array<double, kGroups> weight = {w.quality, w.efficiency, w.robustness, w.engineering};
  double weight_sum = 0;
  for (size_t g = 0; g < kGroups; ++g) {
    if (used[g]) weight_sum += weight[g];
  }
  for (Pool* p : live) {
    std::array<double, kGroups> sum{};
    std::array<int, kGroups> n{};
    for (Scored& f : p->out.figures) {
      const auto [lo, hi] = range[f.name];
      f.scaled = hi == lo             ? 1.0
                 : f.higher_is_better ? (f.value - lo) / (hi - lo)
                                      : (hi - f.value) / (hi - lo);
      sum[size_t(f.group)] += f.scaled;
      ++n[size_t(f.group)];
    }
    p->out.total = 0;
    for (size_t g = 0; g < kGroups; ++g) {
      if (n[g] > 0) p->out.groups[g] = sum[g] / n[g];
      if (used[g] && weight_sum > 0) {
        p->out.total += weight[g] * p->out.groups[g].value_or(0.0) / weight_sum;
      }
    }
  }
  for (Pool* p : live) {
    p->out.pareto = true;
    for (const Pool* q : live) {
      if (q == p) continue;
      bool all = true, one = false;
      for (size_t g = 0; g < kGroups; ++g) {
        if (!used[g]) continue;
        const double a = p->out.groups[g].value_or(0), b = q->out.groups[g].value_or(0);
        all = all && b >= a;
        one = one || b > a;
      }
      if (all && one) {
        p->out.pareto = false;
        break;
      }
    }
  }
}

std::string Recommend(const Selection& s, size_t candidates, const Weights& w) {
  const size_t vetoed = candidates - s.ranked.size();
  std::string out;
  if (s.ranked.empty()) {
    std::map<std::string, int> breaks;
    for (const Veto& v : s.vetoed) ++breaks[v.candidate];
    std::string nearest;
    int fewest = 1 << 30;
    for (const auto& [name, n] : breaks) {
      if (n < fewest) {
        fewest = n;
        nearest = name;
      }
    }
    out = fmt::format("No candidate meets every constraint of {}.", s.profile);
    if (!nearest.empty()) {
      out += fmt::format(" The nearest, {}, breaks {}:", nearest, fewest);
      for (const Veto& v : s.vetoed) {
        if (v.candidate == nearest) out += fmt::format(" {} ({});", v.constraint, v.by);
      }
      out.back() = '.';
    }
    return out;
  }
  const Candidate& best = s.ranked[0];
  const std::array<double, kGroups> weight = {w.quality, w.efficiency, w.robustness, w.engineering};
  std::vector<std::string> strong;  // the groups that count where it is the best
  for (size_t g = 0; g < kGroups; ++g) {
    if (s.group_used[g] && weight[g] > 0 && best.groups[g] && *best.groups[g] >= 0.999) {
      strong.push_back(GroupName(Group(g)));
    }
  }
  out = fmt::format("Under {}, choose {} on {}: it scores {:.2f}", s.profile, best.name,
                    best.device, best.total);
  if (!strong.empty())
    out += fmt::format(", the best {} of those that fit", fmt::join(strong, " and "));
  if (s.ranked.size() > 1) {
    out += fmt::format("; next is {} at {:.2f}.", s.ranked[1].name, s.ranked[1].total);
  } else {
    out += ", the only candidate that meets every constraint.";
  }
  if (vetoed > 0) out += fmt::format(" {} of {} candidates were vetoed.", vetoed, candidates);
  if (!s.unchecked.empty()) {
    out +=
        fmt::format(" Not checked, as no candidate measured it: {}.", fmt::join(s.unchecked, "; "));
  }
  return out;
}

}  // namespace

std::string GroupName(Group g) {
  switch (g) {
    case Group::kQuality:
      return "quality";
    case Group::kEfficiency:
      return "efficiency";
    case Group::kRobustness:
      return "robustness";
    case Group::kEngineering:
      return "engineering";
  }
  return "?";
}

Result<Selection> Select(const std::vector<metrics::ResultRow>& rows, const Profile& profile) {
  Selection s;
  s.profile = profile.name;
  s.about = profile.about;
  // One candidate per cell.
  std::map<std::pair<int64_t, int>, Pool> cells;
  for (const ResultRow& r : rows) {
    Pool& p = cells[{r.cell->run_id, r.cell->cell_index}];
    p.facts = r.cell.get();
    p.out.device = r.cell->device;
    p.out.run_id = r.cell->run_id;
    p.out.cell = r.cell->cell_index + 1;
    p.rows.push_back(&r);
  }
  std::vector<Pool> pool;
  for (auto& [key, p] : cells) pool.push_back(std::move(p));
  Name(pool);
  for (Pool& p : pool) p.out.figures = Figures(p);

  // Vetoes. A constraint no candidate measured is not checked (and said so).
  for (const Constraint& c : profile.constraints) {
    std::vector<const ResultRow*> read(pool.size());
    bool measured = false;
    for (size_t i = 0; i < pool.size(); ++i) {
      auto r = Read(c, pool[i].rows);
      if (!r) return r.error();
      read[i] = *r && (*r)->na_reason.empty() ? *r : nullptr;
      measured = measured || read[i];
    }
    if (!measured) {
      s.unchecked.push_back(c.text);
      continue;
    }
    for (size_t i = 0; i < pool.size(); ++i) {
      Veto v{pool[i].out.name, pool[i].out.device, c.text, "", std::nullopt, "not measured"};
      if (read[i]) {
        v.figure = read[i]->test + "." + read[i]->metric;
        if (Holds(c, read[i]->value)) continue;
        v.value = read[i]->value;
        v.by = By(c, read[i]->value);
      }
      pool[i].vetoed = true;
      s.vetoed.push_back(std::move(v));
    }
  }
  std::vector<Pool*> live;
  for (Pool& p : pool) {
    if (!p.vetoed) live.push_back(&p);
  }
  Score(live, s.group_used, profile.weights);
  for (Pool* p : live) s.ranked.push_back(p->out);
  std::sort(s.ranked.begin(), s.ranked.end(), [](const Candidate& a, const Candidate& b) {
    if (a.total != b.total) return a.total > b.total;
    if (a.name != b.name) return a.name < b.name;
    return a.device < b.device;
  });
  s.recommendation = Recommend(s, pool.size(), profile.weights);

  // The decision tree: one branch per device, its best candidate under the same profile.
  std::set<std::string> devices;
  for (const Pool& p : pool) devices.insert(p.out.device);
  if (devices.size() > 1) {
    for (const std::string& d : devices) {
      std::vector<metrics::ResultRow> mine;
      for (const ResultRow& r : rows) {
        if (r.cell->device == d) mine.push_back(r);
      }
      auto sub = Select(mine, profile);
      if (!sub) return sub.error();
      Leaf leaf;
      leaf.device = d;
      for (const Pool& p : pool) leaf.candidates += p.out.device == d ? 1 : 0;
      leaf.vetoed = leaf.candidates - sub->ranked.size();
      if (!sub->ranked.empty()) {
        leaf.best = sub->ranked[0].name;
        leaf.total = sub->ranked[0].total;
      }
      s.tree.push_back(std::move(leaf));
    }
  }
  return s;
}

}  // namespace pipette::select
