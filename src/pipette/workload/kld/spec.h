// The spec of quality: kld (docs/metrics.md "kld"), as written and as resolved, and its def
// (config/spec_def.h): parsed, canonical form, resolved, its reference checked and run first.
#pragma once

#include <optional>
#include <string>

#include "pipette/config/experiment.h"
#include "pipette/config/spec_def.h"
#include "pipette/config/written.h"

namespace pipette::workload {

enum class KldMode { kFull, kTopK };

// kld: as written.
struct WrittenKld {
  std::string reference{};
  config::WrittenFile corpus{};
  std::optional<int> n_ctx{}, chunks{}, top_k{};
  std::optional<KldMode> mode{};  // as written; top_k alone means topk
  int line = 0;
};

// KL divergence against a reference model of the same experiment, on the scored positions of
// ppl. `full` (the default): over the whole vocabulary, from both models' logits streamed side by
// side (a reference worker runs beside the cell's). `topk`: the reference's distribution kept as
// its top-k log-probabilities plus the mass of the rest, a lower bound (docs/metrics.md says why
// and the error bound).
struct KldSpec {
  std::string reference;  // name of a model of this experiment
  std::string corpus;     // absolute path
  int n_ctx = 512;
  int chunks = 8;   // 0 = all
  int top_k = 128;  // topk mode only
  int line = 0;
  KldMode mode = KldMode::kFull;
};

const config::SpecDef& KldSpecDef();

// The experiment's kld spec, or nullptr when it has none.
const KldSpec* KldSpecOf(const config::Experiment& ex);
KldSpec* MutableKldSpecOf(config::Experiment* ex);
// Gives `ex` this kld spec (tests and tools that make an experiment without a file).
void SetKldSpec(config::Experiment* ex, KldSpec spec);

}  // namespace pipette::workload
