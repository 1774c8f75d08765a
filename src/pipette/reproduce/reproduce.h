// Whether a stored run reproduced (docs/metrics.md "Reproducing a run"): the original run's figures
// against those of the same experiment run again, cell by cell, with the environment differences
// that could explain a miss. Pure: the rows and environments come from the store (app/reproduce.h)
// and reproduce/view.h renders the verdict.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"

namespace pipette::reproduce {

struct FigureCheck {
  // The figure for people: its cell, model and quantization, test and subset ("cell 1 m Q4_1
  // tg128").
  std::string label;
  std::string test, metric, unit;
  // kQuality: must be bit-identical (every sample and the value); kSpeed: the median within the
  // noise band; kOnce: a figure measured once a cell, within the threshold.
  enum class Kind { kQuality, kSpeed, kOnce } kind = Kind::kSpeed;
  double original = 0, now = 0;  // the values (quality) or medians (speed)
  std::optional<double> ratio;   // now / original; none for an original of 0
  double band = 0;               // kSpeed, kOnce: the relative change still reproduced
  // kCannotSay: a speed figure with fewer than 3 samples a run (a load time): no noise band to
  // judge it by; it counts neither way.
  enum class Outcome { kYes, kNo, kCannotSay } outcome = Outcome::kNo;
  bool reproduced() const { return outcome == Outcome::kYes; }
  std::string why;
};

// One fact of the environment that differs between the runs.
struct Difference {
  std::string what;  // "runtime build", "CPU", "governor", "load (1-min average)" ...
  std::string original, now;
};

struct Verdict {
  std::vector<FigureCheck> figures;
  std::vector<std::string> missing;  // figures of the original the re-run lacks or has n/a
  std::vector<Difference> environment;
  size_t reproduced = 0;      // figures that reproduced
  size_t not_reproduced = 0;  // figures that did not (the rest: cannot say)
  bool all_reproduced() const { return not_reproduced == 0 && missing.empty(); }
};

// What each run's environment was, beside its rows: the device fingerprint's facts, and these
// keys added by the caller: "pipette" (version and commit), "load_avg_1" (the largest 1-minute
// load average its cells started under), "other_pipette_cells" (how many cells were measured while
// another Pipette measured) and "not_ready_cells" (how many the readiness gate failed).
struct Side {
  const std::vector<metrics::ResultRow>* rows = nullptr;
  nlohmann::json environment = nlohmann::json::object();
};

// Figures pair by cell position, test, metric and subset (the same experiment makes the same
// cells in the same order). A cell whose model file is not the original's (by SHA-256) reproduces
// none of its figures. `figures` says how each figure is checked (workload::Figures() outside
// tests). `threshold`: the smallest noise band of a speed figure (0.03: ±3%).
Verdict Check(const metrics::FigureCatalogue& figures, const Side& original, const Side& now,
              double threshold = 0.03);

}  // namespace pipette::reproduce
