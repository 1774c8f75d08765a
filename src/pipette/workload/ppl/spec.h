// The spec of quality: ppl (docs/metrics.md "ppl"), as written and as resolved, and its def
// (config/spec_def.h): parsed, canonical form, resolved, stored.
#pragma once

#include <optional>
#include <string>

#include "pipette/config/experiment.h"
#include "pipette/config/spec_def.h"
#include "pipette/config/written.h"

namespace pipette::workload {

// ppl: as written.
struct WrittenPpl {
  config::WrittenFile corpus{};
  std::optional<int> n_ctx{}, chunks{};
  int line = 0;
};

// Perplexity over a text corpus, resolved.
struct PplSpec {
  std::string corpus;  // absolute path
  int n_ctx = 512;     // chunk length in tokens; the second half of each chunk is scored
  int chunks = 0;      // at most this many chunks; 0 = all
  int line = 0;
};

const config::SpecDef& PplSpecDef();

// The experiment's ppl spec, or nullptr when it has none.
const PplSpec* PplSpecOf(const config::Experiment& ex);
// Gives `ex` this ppl spec (tests and tools that make an experiment without a file).
void SetPplSpec(config::Experiment* ex, PplSpec spec);

}  // namespace pipette::workload
