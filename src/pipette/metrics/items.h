// Per-item results of the multiple-choice workload: what each cell chose for each item, from the
// per-choice log-probabilities the store keeps. Derived here, once; the summary figures (acc,
// acc_norm in derive.cc) count the same picks.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"

namespace pipette::metrics {

struct McChoice {
  double logprob = 0;    // sum of the log-probabilities of the choice's continuation tokens
  int64_t n_tokens = 0;  // continuation tokens scored
  int64_t bytes = 0;     // UTF-8 bytes of the choice text (without the separating space)
};

// What acc and acc_norm pick from an item's choices: the highest sum, and the highest sum per
// byte; the first on ties; -1 without choices.
struct McPick {
  int chosen = -1;
  int chosen_norm = -1;
};
McPick PickChoice(const std::vector<McChoice>& choices);

// The choices of one stored `mc` sample (its raw `choices`).
std::vector<McChoice> McChoices(const nlohmann::json& raw);

struct McItemRow {
  int64_t run_id = 0;
  int64_t cell_id = 0;
  int cell_index = 0;
  std::string model;
  std::string quant;
  int item = 0;  // position of the item in the dataset file's item order (0-based)
  std::string id, language, task_type;
  int answer = -1;
  McPick pick;
  bool correct = false, correct_norm = false;  // pick.chosen / chosen_norm == answer
  std::vector<McChoice> choices;
};

// Every `mc` item of every cell (superseded cells left out), in cell order then item order.
// `rows` gives each cell's model and quantization as its figures show them.
std::vector<McItemRow> DeriveMcItems(const store::RunRecord& run,
                                     const std::vector<CellSamples>& cells,
                                     const std::vector<ResultRow>& rows);

}  // namespace pipette::metrics
