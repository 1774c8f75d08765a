// A baseline's figures against a candidate's (docs/metrics.md "Comparing two sets of results"):
// rows paired on every key property (the model by SHA-256, quantization, runtime and its version,
// device, every parameter, test, metric), or on all but the keys a comparison ignores; each pair's
// speed and memory figures compared by verdict.h's rules; unpaired rows listed, never averaged in;
// a gate's lines held against the verdicts. Pure: the rows come from report/load.h or a JSON
// report, and the formats render the result.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pipette/compare/gate.h"
#include "pipette/compare/verdict.h"
#include "pipette/metrics/derive.h"
#include "pipette/util/result.h"

namespace pipette::compare {

// The properties rows pair on: "model", "quant", "runtime", "runtime_version", "device", "test",
// and each parameter by its name ("threads", "n_ctx", ...). The metric and subset always pair.
std::vector<std::pair<std::string, std::string>> PairingKey(const metrics::ResultRow& row);

// The way a figure gets better, for the figures a comparison takes (speed in t/s and ms, energy per
// token, the memory figures in bytes); nullopt for the rest (counts, facts, quality figures: those
// are compared over their items, not here).
std::optional<Direction> GoodDirection(const metrics::ResultRow& row);

struct FigureComparison {
  // The pair's name for people: the keys that tell this comparison's figures apart, the model by
  // name ("threads=4 test=tg128"); the keys every figure shares are Comparison::common.
  std::string label;
  std::vector<std::pair<std::string, std::string>> key;  // every key paired on, the model by name
  std::string test, metric, unit;
  RatioChange change;
  // A gate line that applies, and whether the figure fails it (verdict worse, past its limit).
  std::optional<GateLine> gate;
  bool gate_failed = false;
};

struct Comparison {
  std::vector<FigureComparison> figures;
  std::vector<std::string> baseline_only, candidate_only;  // unpaired rows' labels
  std::vector<std::string> ambiguous;  // a key more than one row of a side holds (not compared)
  std::vector<std::string> ignored;    // the keys not paired on, as asked
  std::string common;                  // "model=... quant=Q4_1 ...": what every figure shares
  stats::BootstrapOptions bootstrap;   // the seed and resamples used
  bool gate_failed = false;
};

struct CompareOptions {
  std::set<std::string> ignore;  // keys not to pair on (a new model against the current one)
  stats::BootstrapOptions bootstrap;
  double threshold = 0.03;  // no real change within ±3%, where no gate line says otherwise
  std::vector<GateLine> gate;
  std::string gate_file;  // for errors
};

// Pairs and compares. An ignored key no row has, or a gate line that names no figure compared, is
// an error (exit 2) suggesting the near name.
Result<Comparison> Compare(const std::vector<metrics::ResultRow>& baseline,
                           const std::vector<metrics::ResultRow>& candidate,
                           const CompareOptions& options);

}  // namespace pipette::compare
