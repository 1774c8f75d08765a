// The spec of quality: mc (docs/metrics.md "mc_acc"), as resolved, and its def
// (config/spec_def.h); written as a dataset workload (workload/dataset_spec.h).
#pragma once

#include <cstdint>
#include <string>

#include "pipette/config/experiment.h"
#include "pipette/config/spec_def.h"

namespace pipette::workload {

// Multiple choice scored by log-likelihood, resolved.
struct McSpec {
  std::string dataset;    // absolute path to the JSONL file
  int limit = 0;          // the first `limit` items; 0 = all
  int64_t max_bytes = 0;  // longest prompt + choice in bytes: an upper bound on its tokens
  int max_line = 0;       // the dataset's line of that item (of the first `limit`)
  int64_t n_items = 0;
  int line = 0;
};
inline constexpr const char* kDefaultMcDataset = "mc/pipette-mc-v1.jsonl";

// The text a multiple-choice item is scored in: the question, then each choice as the
// continuation of "Answer:" (lm-evaluation-harness style).
std::string McPrompt(const std::string& question);
std::string McContinuation(const std::string& choice);

const config::SpecDef& McSpecDef();

// The experiment's mc spec, or nullptr when it has none.
const McSpec* McSpecOf(const config::Experiment& ex);
// Gives `ex` this mc spec (tests and tools that make an experiment without a file).
void SetMcSpec(config::Experiment* ex, McSpec spec);

}  // namespace pipette::workload
