#include "pipette/sensitivity/groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <regex>
#include <set>

namespace pipette::sensitivity {
namespace {

bool Quantizable(const model::GgufTensor& t) { return t.dims.size() >= 2; }

uint64_t Elements(const model::GgufTensor& t) {
  uint64_t n = 1;
  for (uint64_t d : t.dims) n *= d;
  return n;
}

void Count(const model::GgufFile& file, Group* g) {
  const std::regex re(g->pattern);
  for (const auto& t : file.tensors) {
    // llama.cpp applies override patterns with regex_search: count the same way.
    if (!Quantizable(t) || !std::regex_search(t.name, re)) continue;
    ++g->n_tensors;
    g->n_weights += Elements(t);
  }
}

// The N of a tensor named blk.N.*, if it is one.
std::optional<int> LayerOf(const std::string& name) {
  if (!name.starts_with("blk.")) return std::nullopt;
  int n = 0;
  const char* end = name.data() + name.size();
  auto [p, ec] = std::from_chars(name.data() + 4, end, n);
  if (ec != std::errc() || p == end || *p != '.') return std::nullopt;
  return n;
}

// "3, 40-50": runs of consecutive layers (sorted, without repeats) as ranges.
std::string LayerRanges(const std::vector<int>& layers) {
  std::string out;
  for (size_t i = 0; i < layers.size();) {
    size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") +
           (i == j ? std::to_string(layers[i]) : fmt::format("{}-{}", layers[i], layers[j]));
    i = j + 1;
  }
  return out;
}

}  // namespace

int LayerCount(const model::GgufFile& file) {
  int n = 0;
  for (const auto& t : file.tensors) {
    if (auto layer = LayerOf(t.name)) n = std::max(n, *layer + 1);
  }
  return n;
}

Status HasLayers(const std::vector<int>& layers, int n_layers) {
  std::vector<int> missing;
  for (int l : layers) {
    if (l >= n_layers) missing.push_back(l);
  }
  if (missing.empty()) return {};
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  const std::string have =
      n_layers == 0 ? "no layers" : fmt::format("{} layers (0-{})", n_layers, n_layers - 1);
  return InputError(fmt::format("has {}, so there {} {}", have,
                                missing.size() > 1 ? "are no layers" : "is no layer",
                                LayerRanges(missing)));
}

std::vector<Group> GroupsOf(const model::GgufFile& file, const GroupOptions& options) {
  std::vector<Group> out;
  if (options.layers) {
    std::set<int> layers;
    for (const auto& t : file.tensors) {
      if (auto layer = LayerOf(t.name)) layers.insert(*layer);
    }
    for (int layer : layers) {
      if (!options.only_layers.empty() &&
          std::find(options.only_layers.begin(), options.only_layers.end(), layer) ==
              options.only_layers.end()) {
        continue;
      }
      out.push_back(
          {fmt::format("layer {}", layer), "layer", fmt::format("^blk\\.{}\\.", layer), 0, 0});
    }
  }
  if (options.kinds) {
    // Anchored: llama.cpp searches, and an unanchored output pattern would hit attn_output.
    out.push_back({"attention", "kind", "^blk\\.[0-9]+\\.attn_", 0, 0});
    out.push_back({"feed-forward", "kind", "^blk\\.[0-9]+\\.ffn_", 0, 0});
    out.push_back({"embeddings", "kind", "^token_embd\\.weight$", 0, 0});
    out.push_back({"output", "kind", "^output\\.weight$", 0, 0});
  }
  for (Group& g : out) Count(file, &g);
  std::erase_if(out, [](const Group& g) { return g.n_tensors == 0; });
  return out;
}

Result<std::vector<int>> ParseLayerList(const std::string& text) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const size_t dash = item.find('-');
    int lo = 0, hi = 0;
    auto num = [](const std::string& s, int* v) {
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
      return !s.empty() && ec == std::errc() && p == s.data() + s.size() && *v >= 0;
    };
    const bool ok = dash == std::string::npos
                        ? num(item, &lo) && (hi = lo, true)
                        : num(item.substr(0, dash), &lo) && num(item.substr(dash + 1), &hi);
    if (!ok || hi < lo) {
      return InputError(fmt::format("'{}' is not a layer number or range (e.g. 0-3,7)", item));
    }
    for (int i = lo; i <= hi; ++i) out.push_back(i);
    pos = comma + 1;
  }
  return out;
}

}  // namespace pipette::sensitivity
