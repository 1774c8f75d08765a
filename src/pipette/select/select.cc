#include "pipette/select/select.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "pipette/compare/compare.h"
#include "pipette/select/recommend.h"
#include "pipette/stats/pareto.h"
#include "pipette/util/json_text.h"
#include "pipette/util/strings.h"

namespace pipette::select {
namespace {

using metrics::ResultRow;

struct Pool {
  Candidate out;
  const metrics::CellFacts* facts = nullptr;
  std::vector<const ResultRow*> rows;
  bool vetoed = false;
  std::optional<double> density;  // tokens per 1000 characters of the ppl corpus: its tokenizer
};

// The row a constraint reads among a cell's rows (the whole set's, not a language's), or none.
Result<const ResultRow*> Read(const metrics::FigureCatalogue& figures, const Constraint& c,
                              const std::vector<const ResultRow*>& rows) {
  int best = 0;
  std::vector<const ResultRow*> found;
  for (const ResultRow* r : rows) {
    if (!figures.IsWholeSet(*r)) continue;
    const int m = compare::FigureNameMatch(c.figure, *r, figures);
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
  const bool percent =
      c.kind == Constraint::Kind::kFraction && (r->unit == "%" || r->unit == "probability");
  if (c.kind != Constraint::Kind::kPlain && r->na_reason.empty() && r->unit != UnitOf(c.kind) &&
      !percent) {
    return ErrorAt({c.file, c.line, c.column},
                   fmt::format("'{}': {} is in {}, the bound in {}", c.text, c.figure,
                               r->unit.empty() ? "no unit" : r->unit, UnitOf(c.kind)),
                   2);
  }
  return r;
}

// By how much `value` breaks the constraint, in the figure's unit.
std::string By(const Constraint& c, double value) {
  if (value == c.bound) return "at the bound";
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

// The name a figure is scored by: its Scoring::name with the row's test and metric put in.
std::string ScoreName(const std::string& pattern, const ResultRow& r) {
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 6, "<test>") == 0) {
      out += r.test, i += 6;
    } else if (pattern.compare(i, 8, "<metric>") == 0) {
      out += r.metric, i += 8;
    } else {
      out += pattern[i++];
    }
  }
  return out;
}

Group GroupOf(metrics::ScoreGroup g) {
  switch (g) {
    case metrics::ScoreGroup::kQuality:
    case metrics::ScoreGroup::kNone:
      return Group::kQuality;
    case metrics::ScoreGroup::kEfficiency:
      return Group::kEfficiency;
    case metrics::ScoreGroup::kRobustness:
      return Group::kRobustness;
    case metrics::ScoreGroup::kEngineering:
      return Group::kEngineering;
  }
  return Group::kQuality;
}

// The figures a cell is scored on, by group (docs/running.md "Choosing a configuration"): those
// the catalogue gives a Scoring, and select's own: the noise of the headline figures, the
// failures, the conversion steps.
std::vector<Scored> Figures(const metrics::FigureCatalogue& figures, const Pool& p) {
  std::vector<Scored> out;
  auto add = [&](Scored s) {
    if (std::isfinite(s.value)) out.push_back(std::move(s));
  };
  double noise = -1;
  double failures = 0;  // an endpoint's failed streams and requests
  for (const ResultRow* r : p.rows) {
    if (!r->na_reason.empty() || !figures.IsWholeSet(*r)) continue;
    const metrics::FigureDef* def = figures.Of(*r);
    if (!def) continue;
    if (def->score.group != metrics::ScoreGroup::kNone) {
      Scored s;
      s.name = ScoreName(def->score.name, *r);
      s.group = GroupOf(def->score.group);
      s.higher_is_better = def->score.higher;
      s.value = r->value;
      s.unit = def->unit == "bytes" ? "bytes" : "";
      s.same_tokenizer = def->score.same_tokenizer;
      if (def->score.replaces_headline) {
        s.replaces = r->test;
        const auto headline = figures.Named(r->test);
        s.replaces_unit = headline.empty() ? "" : headline[0]->unit;
      }
      add(std::move(s));
    }
    if (def->counts_failures) failures += r->value;
    if (def->headline && r->summary.n >= 2) noise = std::max(noise, r->summary.cv);
  }
  auto own = [&](std::string name, Group g, double v) {
    Scored s;
    s.name = std::move(name);
    s.group = g;
    s.higher_is_better = false;
    s.value = v;
    add(std::move(s));
  };
  if (noise >= 0) own("noise", Group::kRobustness, noise);
  own("failures", Group::kRobustness, failures);
  // Steps between the file one downloads and the one that ran: a variant Pipette quantized (and
  // its importance matrix, if one was made).
  double steps = 0;
  if (p.facts->provenance.is_object()) {
    steps = 1;
    if (p.facts->provenance.contains("imatrix") && !p.facts->provenance["imatrix"].is_null()) {
      steps += 1;
    }
  }
  own("conversion_steps", Group::kEngineering, steps);
  return out;
}

// Names for people: the model, quantization and runtime, and the parameters whose values tell
// candidates apart; unique (a cell's place added where two would read alike).
void Name(std::vector<Pool>& pool) {
  std::map<std::string, std::set<std::string>> values;
  for (const Pool& p : pool) {
    if (!p.facts->params.is_object()) continue;
    for (const auto& [k, v] : p.facts->params.items()) values[k].insert(JsonText(v));
  }
  std::map<std::string, int> seen;
  for (Pool& p : pool) {
    std::string name = fmt::format("{} {} {}", p.facts->model, p.facts->quant, p.facts->runtime);
    if (p.facts->params.is_object()) {
      for (const auto& [k, v] : p.facts->params.items()) {
        if (values[k].size() > 1) name += fmt::format(" {}={}", k, JsonText(v));
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

// Figures that would compare unlike things are left out, with a note: a per-token figure
// (Scoring::same_tokenizer: ppl) when the candidates' tokenizers differ (their tokens per 1000
// characters of the corpus), and a headline where every candidate with it has a figure that stands
// in for it (Scoring::replaces_headline: a tg test's t/s for its time per 1000 characters); else
// that stand-in.
void Comparable(std::vector<Pool*>& live, std::vector<std::string>* notes) {
  std::set<std::string> drop;
  std::set<double> densities;
  for (Pool* p : live) {
    if (p->density) densities.insert(*p->density);
  }
  if (densities.size() > 1) {
    std::set<std::string> per_token;
    for (Pool* p : live) {
      for (const Scored& f : p->out.figures) {
        if (f.same_tokenizer) per_token.insert(f.name);
      }
    }
    for (const std::string& name : per_token) {
      drop.insert(name);
      notes->push_back(fmt::format(
          "{} is left out of the score: the candidates' tokenizers differ ({} to {} tokens per "
          "1000 characters of the corpus), so their {} figures are per different tokens",
          name, *densities.begin(), *densities.rbegin(), name));
    }
  }
  // headline -> (candidates with it, those with its stand-in too), and the stand-in's name
  std::map<std::string, std::pair<int, int>> count;
  std::map<std::string, std::string> stand_in, unit;
  for (Pool* p : live) {
    std::map<std::string, std::string> standing;  // headline -> its stand-in, in this candidate
    for (const Scored& f : p->out.figures) {
      if (f.replaces.empty()) continue;
      standing[f.replaces] = f.name;
      unit[f.replaces] = f.replaces_unit;
    }
    for (const auto& [headline, name] : standing) stand_in[headline] = name;
    std::set<std::string> names;
    for (const Scored& f : p->out.figures) names.insert(f.name);
    for (const std::string& n : names) {
      ++count[n].first;
      if (standing.count(n)) ++count[n].second;
    }
  }
  for (const auto& [headline, name] : stand_in) {
    const auto [with, with_stand_in] = count[headline];
    if (with > 0 && with == with_stand_in) {
      drop.insert(headline);
      notes->push_back(
          fmt::format("{} is scored by {}, which compares tokenizers alike, not by its {}",
                      headline, name, unit[headline]));
    } else {
      drop.insert(name);
    }
  }
  for (Pool* p : live) {
    auto& f = p->out.figures;
    f.erase(std::remove_if(f.begin(), f.end(), [&](const Scored& x) { return drop.count(x.name); }),
            f.end());
  }
}

void Score(std::vector<Pool*>& live, std::array<bool, kGroups>& used, const Weights& w,
           std::vector<std::string>* notes) {
  Comparable(live, notes);
  // Each figure scaled over the candidates that have it, in its good direction; a candidate
  // without a figure others have scores 0 on it.
  struct Range {
    double lo, hi;
    Group group;
    bool higher;
  };
  std::map<std::string, Range> range;
  for (Pool* p : live) {
    for (const Scored& f : p->out.figures) {
      auto [it, fresh] =
          range.emplace(f.name, Range{f.value, f.value, f.group, f.higher_is_better});
      if (!fresh) {
        it->second.lo = std::min(it->second.lo, f.value);
        it->second.hi = std::max(it->second.hi, f.value);
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
    std::set<std::string> has;
    for (Scored& f : p->out.figures) {
      const Range& r = range.at(f.name);
      f.scaled = r.hi == r.lo         ? 1.0
                 : f.higher_is_better ? (f.value - r.lo) / (r.hi - r.lo)
                                      : (r.hi - f.value) / (r.hi - r.lo);
      sum[size_t(f.group)] += f.scaled;
      ++n[size_t(f.group)];
      has.insert(f.name);
    }
    for (const auto& [name, r] : range) {
      if (has.count(name)) continue;
      ++n[size_t(r.group)];  // not measured: 0
      p->out.missing.push_back(name);
    }
    p->out.total = 0;
    for (size_t g = 0; g < kGroups; ++g) {
      if (n[g] > 0) p->out.groups[g] = sum[g] / n[g];
      if (used[g] && weight_sum > 0) {
        p->out.total += weight[g] * p->out.groups[g].value_or(0.0) / weight_sum;
      }
    }
  }
  // Pareto-optimal over the groups the profile weighs.
  std::vector<std::vector<double>> points;
  for (const Pool* p : live) {
    std::vector<double>& point = points.emplace_back();
    for (size_t g = 0; g < kGroups; ++g) {
      if (used[g] && weight[g] > 0) point.push_back(p->out.groups[g].value_or(0));
    }
  }
  const std::vector<bool> optimal = stats::ParetoOptimal(points);
  for (size_t i = 0; i < live.size(); ++i) live[i]->out.pareto = optimal[i];
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

namespace {

// The selection over `rows`. `checked`: the constraints to hold (a device's branch of the tree
// holds those the whole pool measured, whatever its own cells measured); null: every constraint
// some candidate measured, the rest listed as not checked.
Result<Selection> SelectAmong(const metrics::FigureCatalogue& figures,
                              const std::vector<metrics::ResultRow>& rows, const Profile& profile,
                              const std::set<std::string>* checked) {
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
    const metrics::FigureDef* def = figures.Of(r);
    if (def && def->tokenizer_density && r.na_reason.empty() && r.value > 0) {
      p.density = r.value;
    }
  }
  std::vector<Pool> pool;
  for (auto& [key, p] : cells) pool.push_back(std::move(p));
  Name(pool);
  for (Pool& p : pool) p.out.figures = Figures(figures, p);

  // A cell that did not complete (failed, oom, interrupted) is no configuration to choose.
  for (Pool& p : pool) {
    if (p.facts->cell_status == "ok") continue;
    p.vetoed = true;
    s.vetoed.push_back({p.out.name, p.out.device, "the cell completed", "", std::nullopt,
                        fmt::format("it did not ({})", p.facts->cell_status), ""});
  }
  // Vetoes. A constraint no candidate measured is not checked (and said so).
  for (const Constraint& c : profile.constraints) {
    std::vector<const ResultRow*> read(pool.size());
    bool measured = false;
    for (size_t i = 0; i < pool.size(); ++i) {
      auto r = Read(figures, c, pool[i].rows);
      if (!r) return r.error();
      read[i] = *r && (*r)->na_reason.empty() ? *r : nullptr;
      measured = measured || read[i];
    }
    if (checked ? !checked->count(c.text) : !measured) {
      if (!checked) s.unchecked.push_back(c.text);
      continue;
    }
    for (size_t i = 0; i < pool.size(); ++i) {
      Veto v{pool[i].out.name, pool[i].out.device, c.text, "", std::nullopt, "not measured", ""};
      if (read[i]) {
        v.figure = read[i]->test + "." + read[i]->metric;
        // A bound in % of a figure in % ("decay <= 10%"): both as fractions.
        const double value = read[i]->unit == "%" && c.kind == Constraint::Kind::kFraction
                                 ? read[i]->value / 100
                                 : read[i]->value;
        if (Holds(c, value)) continue;
        v.value = read[i]->value;
        v.unit = read[i]->unit;
        v.by = By(c, value);
      }
      pool[i].vetoed = true;
      s.vetoed.push_back(std::move(v));
    }
  }
  std::vector<Pool*> live;
  for (Pool& p : pool) {
    if (!p.vetoed) live.push_back(&p);
  }
  Score(live, s.group_used, profile.weights, &s.notes);
  for (Pool* p : live) s.ranked.push_back(p->out);
  std::sort(s.ranked.begin(), s.ranked.end(), [](const Candidate& a, const Candidate& b) {
    if (a.total != b.total) return a.total > b.total;
    if (a.name != b.name) return a.name < b.name;
    return a.device < b.device;
  });
  s.recommendation = Recommend(s, pool.size(), profile.weights);
  s.candidates = pool.size();
  return s;
}

}  // namespace

Result<Selection> Select(const metrics::FigureCatalogue& figures,
                         const std::vector<metrics::ResultRow>& rows, const Profile& profile) {
  auto whole = SelectAmong(figures, rows, profile, nullptr);
  if (!whole) return whole;
  Selection& s = *whole;
  // The decision tree: one branch per device, its best candidate under the constraints the whole
  // pool was held to, named as in the ranked list.
  std::set<std::string> devices;
  std::map<std::pair<int64_t, int>, std::string> names;
  for (const Candidate& c : s.ranked) names[{c.run_id, c.cell}] = c.name;
  for (const ResultRow& r : rows) devices.insert(r.cell->device);
  if (devices.size() < 2) return whole;
  std::set<std::string> checked;
  for (const Constraint& c : profile.constraints) {
    if (std::find(s.unchecked.begin(), s.unchecked.end(), c.text) == s.unchecked.end()) {
      checked.insert(c.text);
    }
  }
  for (const std::string& d : devices) {
    std::vector<metrics::ResultRow> mine;
    for (const ResultRow& r : rows) {
      if (r.cell->device == d) mine.push_back(r);
    }
    auto sub = SelectAmong(figures, mine, profile, &checked);
    if (!sub) return sub.error();
    Leaf leaf;
    leaf.device = d;
    leaf.candidates = sub->candidates;
    leaf.vetoed = sub->candidates - sub->ranked.size();
    if (!sub->ranked.empty()) {
      const Candidate& best = sub->ranked[0];
      auto it = names.find({best.run_id, best.cell});
      leaf.best = it != names.end() ? it->second : best.name;
      leaf.total = best.total;
    }
    s.tree.push_back(std::move(leaf));
  }
  return whole;
}

}  // namespace pipette::select
