// A baseline's figures against a candidate's (docs/metrics.md "Comparing two sets of results"):
// rows paired on every key property (the model by SHA-256, quantization, runtime and its version,
// device, every parameter, test, metric), or on all but the keys a comparison ignores; each pair's
// speed and memory figures compared by the ratio of medians and its quality figures by a paired
// difference over items or chunks (verdict.h); unpaired rows listed, never averaged in; a gate's
// lines held against the verdicts. Pure: the rows come from report/load.h or a JSON report, and
// compare/view.h renders the result.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pipette/compare/gate.h"
#include "pipette/compare/sides.h"
#include "pipette/compare/verdict.h"
#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"
#include "pipette/util/result.h"

namespace pipette::compare {

// Properties and their values, in order.
using Key = std::vector<std::pair<std::string, std::string>>;

// The properties of a row's cell that rows pair on: "model", "quant", "runtime",
// "runtime_version", "device", and each parameter by its name ("threads", "n_ctx", ...).
Key CellKey(const metrics::ResultRow& row);
// The properties rows pair on: the cell's (CellKey), then "test", "metric" and, where a row has
// one, "subset", as it pairs (FigureCatalogue::PairingSubset: without what names one store's
// cells, "reference cell 12", or what was measured, "mean reference tail mass 0.0123"). The test,
// metric and subset always pair.
Key PairingKey(const metrics::ResultRow& row, const metrics::FigureCatalogue& figures);
// Whether a figure's name as people write it (a gate line, a constraint) names the row, and how
// specifically: 3 its test and metric ("tg128.itl_p50", "mc_acc"), 2 its metric ("peak_rss"), 1
// its test when the row is the test's headline ("tg128"); 0 not at all.
int FigureNameMatch(const std::string& name, const metrics::ResultRow& row,
                    const metrics::FigureCatalogue& figures);
// The keys that cannot be ignored.
bool AlwaysPaired(const std::string& key);

// How a figure is compared, from its def in the catalogue (metrics/figures.h): speed, memory and
// energy by the ratio of medians, quality by a paired difference; nullopt for a figure not judged
// (counts, facts, the load's rss_delta, which may fall or rise for reasons of no merit) or not in
// the catalogue.
struct Rule {
  Direction direction = Direction::kHigherIsBetter;
  Change::Of of = Change::Of::kRatio;  // kDifference: a quality figure over paired units
  bool proportion = false;             // a fraction of items (acc, format_ok): "point" applies
  bool measured_once = false;          // one value a cell (peak_rss, file_size, kv bytes)
  bool geometric_mean = false;         // over units, the geometric mean (ppl), else the mean
};
std::optional<Rule> RuleFor(const metrics::FigureDef* def);

struct FigureComparison {
  // The pair's name for people: the keys that tell this comparison's figures apart, the model by
  // name ("threads=4 test=tg128"); the keys every figure shares are Comparison::common.
  std::string label;
  Key key;  // every key paired on but the metric, the model by name
  std::string test, metric, unit;
  Change change;
  // Non-empty: the candidate has no such figure, or has it n/a, and this says so. Only figures a
  // gate line covers are listed so (and fail it); others are Comparison::baseline_only.
  std::string missing;
  // The gate line that applies (the most specific), and whether the figure fails it.
  std::optional<GateLine> gate;
  bool gate_failed = false;
  // Non-empty: the gate line cannot be decided on this figure, and this says why (too few
  // samples, too noisy, the baseline lacks it, the same cells on both sides, measured under a
  // warning). Never both this and gate_failed.
  std::string gate_inconclusive;
  // Non-empty: a side's figure was measured under a warning that makes it untrustworthy
  // (metrics::CellFacts::untrusted), the side named ("candidate: measured while ..."). The
  // verdict stands, marked.
  std::string untrusted;
  // Both sides are the very same cell's samples (one run compared with itself): the change is
  // nothing by construction.
  bool same_cells = false;
};

// What a gate says of the whole comparison: every line held (kPassed), a line failed (kFailed,
// exit 1), or no line failed but some could not be decided (kInconclusive, exit 3).
enum class GateOutcome { kPassed, kFailed, kInconclusive };
std::string GateOutcomeName(GateOutcome o);  // "passed", "failed", "inconclusive"

struct Comparison {
  std::vector<FigureComparison> figures;
  std::vector<std::string> baseline_only, candidate_only;  // unpaired figures, described
  // Paired figures not compared, each with why: n/a on a side, or a key more than one row of a
  // side holds.
  std::vector<std::string> not_compared;
  std::vector<std::string> ignored;   // the keys not paired on, as asked
  std::string common;                 // "model=... quant=Q4_1 ...": what every figure shares
  stats::BootstrapOptions bootstrap;  // the seed and resamples used
  bool gated = false;                 // a gate was given
  bool gate_failed = false;
  bool gate_inconclusive = false;  // a line could not be decided (no line failed, or some did)
  // How many compared figures are the same cells on both sides (FigureComparison::same_cells).
  size_t same_cells = 0;
  // Whether the sides were measured in rounds of one run (compare/sides.h); set by the caller,
  // which knows where the rows came from. Unset: not said.
  std::optional<Interleaving> interleaving;
};

struct CompareOptions {
  std::set<std::string> ignore;   // keys not to pair on (a new model against the current one)
  std::set<std::string> pair_on;  // if given, the only keys paired on (with test and metric)
  stats::BootstrapOptions bootstrap;
  double threshold = 0.03;  // no real change within ±3%, where no gate line says otherwise
  double proportion_threshold = 0.01;  // for proportions: one percentage point
  std::vector<GateLine> gate;
  std::string gate_file;  // for errors
};

// The gate's outcome: kFailed when a line failed, else kInconclusive when a line could not be
// decided, else kPassed; nullopt without a gate.
std::optional<GateOutcome> OutcomeOf(const Comparison& c);

// Pairs and compares; `figures` says what each figure means (workload::Figures() outside tests).
// An ignored key no row has, a gate line that names no figure compared or
// allows a change the wrong way, are errors (exit 2) with the near name or the form expected.
Result<Comparison> Compare(const metrics::FigureCatalogue& figures,
                           const std::vector<metrics::ResultRow>& baseline,
                           const std::vector<metrics::ResultRow>& candidate,
                           const CompareOptions& options);

}  // namespace pipette::compare
