#include "pipette/reproduce/reproduce.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "pipette/stats/stats.h"
#include "pipette/util/json_text.h"

namespace pipette::reproduce {
namespace {

using nlohmann::json;

using Key = std::tuple<int, std::string, std::string, std::string>;  // cell, test, metric, subset

Key KeyOf(const metrics::ResultRow& r, const metrics::FigureCatalogue& figures) {
  return {r.cell->cell_index, r.test, r.metric, figures.PairingSubset(r)};
}

// How the figure is checked, from its def (metrics/figures.h): every quality figure against its
// interval; a judged figure measured once a cell exactly; a judged speed or energy figure against
// its noise; nullopt for the rest (counts, facts, sizes that vary with the run).
std::optional<FigureCheck::Kind> KindOf(const metrics::FigureDef* def) {
  if (!def) return std::nullopt;
  if (def->kind == metrics::FigureKind::kQuality) return FigureCheck::Kind::kQuality;
  if (def->better == metrics::Better::kNotJudged) return std::nullopt;
  if (def->statistic == metrics::Statistic::kMeasuredOnce) return FigureCheck::Kind::kOnce;
  if (def->kind == metrics::FigureKind::kSpeed || def->kind == metrics::FigureKind::kEnergy) {
    return FigureCheck::Kind::kSpeed;
  }
  return std::nullopt;
}

std::string Label(const metrics::ResultRow& r) {
  std::string s =
      fmt::format("cell {} {} {} {}", r.cell->cell_index + 1, r.cell->model, r.cell->quant, r.test);
  if (!r.subset.empty()) s += " " + r.subset;
  return s;
}

// The value as text, whatever its JSON type; "" for none.
std::string Shown(const json& v) { return v.is_null() ? "" : JsonText(v); }

// The runtimes the rows ran on, with their build's commit where it says.
std::string Runtimes(const std::vector<metrics::ResultRow>& rows) {
  std::set<std::string> out;
  for (const auto& r : rows) {
    std::string s = r.cell->runtime + " " + r.cell->runtime_version;
    const std::string commit = r.cell->runtime_build.is_object()
                                   ? r.cell->runtime_build.value("llama_cpp_commit", "")
                                   : "";
    if (!commit.empty()) s += " (llama.cpp " + commit + ")";
    out.insert(s);
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

// Why a figure that did not reproduce might not have: the differences that bear on its kind.
std::string Explain(FigureCheck::Kind kind, const std::vector<Difference>& env) {
  std::vector<std::string> what;
  for (const Difference& d : env) {
    // What changes a quality figure's arithmetic: the model, the build, the instructions.
    const bool build = d.what == "runtime" || d.what == "ISA flags" || d.what == "CPU" ||
                       d.what == "Pipette" || d.what == "experiment (config hash)" ||
                       d.what.rfind("model file", 0) == 0;
    if (kind == FigureCheck::Kind::kQuality ? build : true) what.push_back(d.what);
  }
  if (what.empty()) return "";
  return fmt::format("; differs from the original's: {}", fmt::join(what, ", "));
}

FigureCheck CheckQuality(FigureCheck f, const metrics::ResultRow& a, const metrics::ResultRow& b) {
  f.original = a.value;
  f.now = b.value;
  if (a.value != 0) f.ratio = b.value / a.value;
  const bool same_value = a.value == b.value || (std::isnan(a.value) && std::isnan(b.value));
  if (a.dataset_sha256 != b.dataset_sha256) {
    f.why = "scored on other data (the dataset's SHA-256 differs)";
    return f;
  }
  if (a.samples.size() != b.samples.size()) {
    f.why = fmt::format("{} units then, {} now", a.samples.size(), b.samples.size());
    return f;
  }
  for (size_t i = 0; i < a.samples.size(); ++i) {
    if (a.samples[i] != b.samples[i]) {
      f.why = fmt::format("not bit-identical: unit {} of {} differs ({:.17g} then, {:.17g} now)",
                          i + 1, a.samples.size(), a.samples[i], b.samples[i]);
      return f;
    }
  }
  if (!same_value) {
    f.why = fmt::format("not bit-identical: {:.17g} then, {:.17g} now", a.value, b.value);
    return f;
  }
  f.outcome = FigureCheck::Outcome::kYes;
  f.why = fmt::format("bit-identical ({} units)", a.samples.size());
  return f;
}

FigureCheck CheckSpeed(FigureCheck f, const metrics::ResultRow& a, const metrics::ResultRow& b,
                       double threshold) {
  if (a.samples.empty() || b.samples.empty()) {
    f.why = "a run has no samples of it";
    return f;
  }
  f.original = stats::Median(a.samples);
  f.now = stats::Median(b.samples);
  if (f.original == 0) {
    f.why = "the original is 0";
    return f;
  }
  f.ratio = f.now / f.original;
  const double change = *f.ratio - 1.0;
  if (f.kind == FigureCheck::Kind::kOnce) {
    f.band = threshold;
    const bool within = std::fabs(change) <= f.band;
    f.outcome = within ? FigureCheck::Outcome::kYes : FigureCheck::Outcome::kNo;
    f.why = fmt::format("measured once a cell: {:+.1f}%, {} ±{:g}%", change * 100,
                        within ? "within" : "past", f.band * 100);
    return f;
  }
  if (a.samples.size() < 3 || b.samples.size() < 3) {
    f.outcome = FigureCheck::Outcome::kCannotSay;
    f.why = fmt::format(
        "{:+.1f}%, but {} and {} samples: fewer than 3 a run give no noise band to judge by",
        change * 100, a.samples.size(), b.samples.size());
    return f;
  }
  const double cv_a = stats::Cv(a.samples), cv_b = stats::Cv(b.samples);
  f.band = std::max({threshold, cv_a, cv_b});
  const bool within = std::isfinite(change) && std::fabs(change) <= f.band;
  f.outcome = within ? FigureCheck::Outcome::kYes : FigureCheck::Outcome::kNo;
  f.why =
      fmt::format("median {:+.1f}%, {} the noise band ±{:.1f}% (CV {:.1f}% then, {:.1f}% now)",
                  change * 100, within ? "within" : "past", f.band * 100, cv_a * 100, cv_b * 100);
  return f;
}

}  // namespace

Verdict Check(const metrics::FigureCatalogue& figures, const Side& original, const Side& now,
              double threshold) {
  Verdict v;
  // The environment first: it explains the figures that missed.
  static const std::vector<std::pair<const char*, const char*>> kFacts = {
      {"config_hash", "experiment (config hash)"},
      {"pipette", "Pipette"},
      {"cpu_model", "CPU"},
      {"isa_flags", "ISA flags"},
      {"cpu_cores_available", "CPU cores available"},
      {"cpu_governor", "governor"},
      {"cpu_freq_scaling_max_khz", "CPU frequency cap (kHz)"},
      {"kernel", "kernel"},
      {"mem_total_bytes", "memory (bytes)"},
      {"virtualized", "virtualized"},
      {"tier", "tier"},
      {"hostname", "host"},
      {"load_avg_1", "load (largest 1-minute average at a cell's start)"},
      {"other_pipette_cells", "cells measured while another Pipette measured"},
      {"not_ready_cells", "cells the readiness gate found the device not ready for"}};
  const std::string rt_a = Runtimes(*original.rows), rt_b = Runtimes(*now.rows);
  if (rt_a != rt_b) v.environment.push_back({"runtime", rt_a, rt_b});
  for (const auto& [key, what] : kFacts) {
    const json a = original.environment.value(key, json()), b = now.environment.value(key, json());
    if (a == b) continue;
    // A load that moved by less than half a core is the same load.
    if (std::string_view(key) == "load_avg_1" && a.is_number() && b.is_number() &&
        std::fabs(a.get<double>() - b.get<double>()) < 0.5) {
      continue;
    }
    v.environment.push_back({what, Shown(a), Shown(b)});
  }
  // The models, by SHA-256, cell by cell.
  std::map<int, std::pair<std::string, std::string>> models;
  for (const auto& r : *original.rows) models[r.cell->cell_index].first = r.cell->model_sha256;
  for (const auto& r : *now.rows) models[r.cell->cell_index].second = r.cell->model_sha256;
  std::set<int> other_model;
  for (const auto& [cell, sha] : models) {
    if (!sha.first.empty() && !sha.second.empty() && sha.first != sha.second) {
      other_model.insert(cell);
      v.environment.push_back(
          {fmt::format("model file of cell {} (SHA-256)", cell + 1), sha.first, sha.second});
    }
  }

  std::map<Key, const metrics::ResultRow*> by_key;
  for (const auto& r : *now.rows) by_key[KeyOf(r, figures)] = &r;
  for (const auto& a : *original.rows) {
    const auto kind = KindOf(figures.Of(a));
    if (!kind || !a.na_reason.empty()) continue;
    auto it = by_key.find(KeyOf(a, figures));
    if (it == by_key.end() || !it->second->na_reason.empty()) {
      v.missing.push_back(fmt::format(
          "{} {}: {}", Label(a), a.metric,
          it == by_key.end() ? "not measured again" : "n/a now: " + it->second->na_reason));
      continue;
    }
    FigureCheck f;
    f.label = Label(a);
    f.test = a.test;
    f.metric = a.metric;
    f.unit = a.unit;
    f.kind = *kind;
    f = *kind == FigureCheck::Kind::kQuality ? CheckQuality(std::move(f), a, *it->second)
                                             : CheckSpeed(std::move(f), a, *it->second, threshold);
    if (other_model.count(a.cell->cell_index)) {
      // Not the experiment's model: whatever the figures, this is not a reproduction.
      f.outcome = FigureCheck::Outcome::kNo;
      f.why = "the cell ran another model file than the original's (SHA-256 differs); " + f.why;
    }
    // A side measured under a warning (another Pipette measuring, the device not ready): said
    // with the figure, whatever its outcome.
    for (const auto& [side, row] : {std::pair{"original", &a}, std::pair{"now", it->second}}) {
      if (!row->cell->untrusted.empty()) {
        f.why += fmt::format("; untrusted ({}): {}", side, row->cell->untrusted);
      }
    }
    if (f.outcome == FigureCheck::Outcome::kNo) {
      f.why += Explain(f.kind, v.environment);
      ++v.not_reproduced;
    }
    if (f.outcome == FigureCheck::Outcome::kYes) ++v.reproduced;
    v.figures.push_back(std::move(f));
  }
  return v;
}

}  // namespace pipette::reproduce
