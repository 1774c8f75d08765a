// Layer sensitivity: the groups of tensors quantized one at a time (per layer, per tensor kind),
// and the choice of a mixed-precision recipe from their measured damage. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipette/model/gguf.h"
#include "pipette/util/result.h"

namespace pipette::sensitivity {

struct Group {
  std::string name;     // "layer 3", "attention", "feed-forward", "embeddings", "output"
  std::string kind;     // "layer" or "kind"
  std::string pattern;  // anchored regular expression on tensor names (llama.cpp's overrides
                        // search names with it: std::regex_search)
  int n_tensors = 0;    // quantizable (2-D or more) tensors it matches
  uint64_t n_weights = 0;
};

// Which groups to measure.
struct GroupOptions {
  bool layers = true;
  bool kinds = true;
  std::vector<int> only_layers;  // empty: every layer
};

// The groups of a model from its tensor table (names as llama.cpp writes them: blk.N.attn_q.weight,
// token_embd.weight, output.weight). Groups that match no quantizable tensor are left out.
std::vector<Group> GroupsOf(const model::GgufFile& file, const GroupOptions& options);

// How many layers (blocks) the model has: one more than the highest N of its blk.N tensors.
int LayerCount(const model::GgufFile& file);

// Every layer of `layers` is one of the model's n_layers; else an input error saying, to follow
// the model's name, what is missing: "has 30 layers (0-29), so there are no layers 40-50".
Status HasLayers(const std::vector<int>& layers, int n_layers);

// Parses "0-3,7" into layer numbers; an input error names what is wrong.
Result<std::vector<int>> ParseLayerList(const std::string& text);

}  // namespace pipette::sensitivity
