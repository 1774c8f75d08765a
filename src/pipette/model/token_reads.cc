#include "pipette/model/token_reads.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "pipette/model/ggml_types.h"

namespace pipette::model {
namespace {

std::optional<int64_t> IntKey(const GgufFile& f, const std::string& key) {
  auto it = f.metadata.find(key);
  if (it == f.metadata.end()) return std::nullopt;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// llama.cpp's default sliding-window layer patterns (its models/<arch>.cpp, load_swa_pattern),
// used when the file has no sliding_window_pattern: of every n layers, all but the last slide.
const std::map<std::string, int64_t>& DefaultSwaPatterns() {
  static const std::map<std::string, int64_t> patterns = {
      {"gemma2", 2}, {"gemma3", 6}, {"gemma-embedding", 6}, {"cohere2", 4}};
  return patterns;
}

}  // namespace

Result<TokenReads> TokenReadsOf(const GgufFile& file) {
  const std::string arch = file.architecture().value_or("");
  if (arch.empty()) return InputError("the file names no general.architecture");
  auto key = [&](const char* k) { return arch + "." + k; };
  auto need = [&](const char* k) -> Result<int64_t> {
    auto v = IntKey(file, key(k));
    if (!v || *v <= 0) {
      auto it = file.metadata.find(key(k));
      return InputError(it == file.metadata.end()
                            ? fmt::format("the file has no {}", key(k))
                            : fmt::format("{} is '{}', not one positive number (a per-layer value "
                                          "is not read)",
                                          key(k), it->second));
    }
    return *v;
  };
  // Shapes whose KV cache or weights per token this model does not describe: a number would be
  // wrong, so none is given.
  for (const char* k : {"attention.kv_lora_rank", "ssm.conv_kernel", "wkv.head_size",
                        "attention.shared_kv_layers", "shortconv.l_cache"}) {
    if (file.metadata.count(key(k))) {
      return InputError(fmt::format(
          "{} has {} (latent or shared attention, or recurrent layers): its KV cache is not "
          "n_head_kv x key_length a position on every layer, which is all this model of the "
          "reads knows",
          arch, key(k)));
    }
  }
  TokenReads r;
  const GgufTensor* embd = nullptr;
  bool has_output = false;
  // Mixture of experts: of expert_count experts, expert_used_count are read a token.
  const auto experts = IntKey(file, key("expert_count"));
  const auto used = IntKey(file, key("expert_used_count"));
  for (const GgufTensor& t : file.tensors) {
    if (t.name.find("_exps.") != std::string::npos) {
      if (!experts || !used || *experts <= 0 || *used <= 0 || *used > *experts) {
        return InputError(fmt::format("{} has expert tensors ({}) but no readable {} and {}", arch,
                                      t.name, key("expert_count"), key("expert_used_count")));
      }
      r.weight_bytes += static_cast<int64_t>(t.n_bytes) / *experts * *used;
    } else {
      r.weight_bytes += static_cast<int64_t>(t.n_bytes);
    }
    if (t.name == "token_embd.weight") embd = &t;
    if (t.name == "output.weight") has_output = true;
  }
  if (embd && embd->dims.size() >= 2 && embd->dims[1] > 0) {
    const int64_t row = static_cast<int64_t>(embd->n_bytes / embd->dims[1]);
    r.output_tied = !has_output;
    if (!r.output_tied) r.weight_bytes -= static_cast<int64_t>(embd->n_bytes);
    r.weight_bytes += row;
  }

  auto n_layer = need("block_count");
  if (!n_layer) return n_layer.error();
  auto n_head = need("attention.head_count");
  if (!n_head) return n_head.error();
  auto n_embd = need("embedding_length");
  if (!n_embd) return n_embd.error();
  int64_t n_head_kv = *n_head;
  if (file.metadata.count(key("attention.head_count_kv"))) {
    auto v = need("attention.head_count_kv");
    if (!v) return v.error();
    n_head_kv = *v;
  }
  const int64_t k_len = IntKey(file, key("attention.key_length")).value_or(*n_embd / *n_head);
  const int64_t v_len = IntKey(file, key("attention.value_length")).value_or(*n_embd / *n_head);
  const int64_t window = IntKey(file, key("attention.sliding_window")).value_or(0);
  r.kv_source = "GGUF shape";
  int64_t pattern = -1;  // -1: no sliding-window layer; 0: every layer slides (llama.cpp's rule)
  if (window > 0) {
    const std::string pattern_key = key("attention.sliding_window_pattern");
    auto it = file.metadata.find(pattern_key);
    if (it != file.metadata.end() && it->second.starts_with("[array")) {
      return InputError(fmt::format("{} is a per-layer array, which is not read", pattern_key));
    }
    if (auto p = IntKey(file, pattern_key); p && *p >= 0) {
      pattern = *p;
      r.kv_source += " (the file's sliding_window_pattern)";
    } else if (auto d = DefaultSwaPatterns().find(arch); d != DefaultSwaPatterns().end()) {
      pattern = d->second;
      r.kv_source += fmt::format(" (llama.cpp's {} pattern)", arch);
    } else {
      return InputError(fmt::format(
          "the file has a sliding window ({}) but no layer pattern, and none is known for {}",
          window, arch));
    }
    r.kv_source += pattern == 0 ? fmt::format("; sliding window {} on every layer", window)
                                : fmt::format("; sliding window {} on {} of every {} layers",
                                              window, pattern - 1, pattern);
  }
  for (int64_t il = 0; il < *n_layer; ++il) {
    const bool swa = pattern == 0 || (pattern > 0 && il % pattern < pattern - 1);
    KvLayers layer{1, n_head_kv * k_len, n_head_kv * v_len, swa ? window : 0};
    if (!r.kv.empty() && r.kv.back().window == layer.window &&
        r.kv.back().k_per_position == layer.k_per_position &&
        r.kv.back().v_per_position == layer.v_per_position) {
      ++r.kv.back().count;
    } else {
      r.kv.push_back(layer);
    }
  }
  return r;
}

nlohmann::json ToJson(const TokenReads& reads) {
  nlohmann::json kv = nlohmann::json::array();
  for (const KvLayers& l : reads.kv) {
    kv.push_back({{"layers", l.count},
                  {"k_per_position", l.k_per_position},
                  {"v_per_position", l.v_per_position},
                  {"window", l.window}});
  }
  return {{"weight_bytes", reads.weight_bytes},
          {"output_tied", reads.output_tied},
          {"kv", kv},
          {"kv_source", reads.kv_source}};
}

std::optional<TokenReads> TokenReadsFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  auto w = j.find("weight_bytes");
  auto kv = j.find("kv");
  if (w == j.end() || !w->is_number_integer() || kv == j.end() || !kv->is_array()) {
    return std::nullopt;
  }
  TokenReads r;
  r.weight_bytes = w->get<int64_t>();
  r.output_tied = j.value("output_tied", false);
  r.kv_source = j.value("kv_source", std::string());
  for (const nlohmann::json& l : *kv) {
    if (!l.is_object()) return std::nullopt;
    KvLayers layer;
    for (auto [name, field] :
         {std::pair{"layers", &layer.count}, std::pair{"k_per_position", &layer.k_per_position},
          std::pair{"v_per_position", &layer.v_per_position}, std::pair{"window", &layer.window}}) {
      auto it = l.find(name);
      if (it == l.end() || !it->is_number_integer()) return std::nullopt;
      *field = it->get<int64_t>();
    }
    r.kv.push_back(layer);
  }
  return r;
}

std::optional<double> KvTypeBytes(std::string_view type) {
  // The types llama.cpp's --cache-type-k/-v accept; their layouts are ggml's (ggml_types.h).
  constexpr std::string_view kCacheTypes[] = {"f32",  "f16",  "bf16", "q8_0",  "q4_0",
                                              "q4_1", "q5_0", "q5_1", "iq4_nl"};
  if (std::find(std::begin(kCacheTypes), std::end(kCacheTypes), type) == std::end(kCacheTypes)) {
    return std::nullopt;
  }
  const GgmlType* t = FindGgmlType(type);
  if (t == nullptr) return std::nullopt;
  return t->BytesPerElement();
}

double KvReadBytes(const TokenReads& reads, int64_t positions, double k_element_bytes,
                   double v_element_bytes) {
  double bytes = 0;
  for (const KvLayers& l : reads.kv) {
    const int64_t attended = l.window > 0 ? std::min(positions, l.window) : positions;
    bytes +=
        double(l.count) * double(attended) *
        (double(l.k_per_position) * k_element_bytes + double(l.v_per_position) * v_element_bytes);
  }
  return bytes;
}

double TgBytesPerToken(const TokenReads& reads, int64_t depth, int64_t n_gen,
                       double k_element_bytes, double v_element_bytes) {
  if (n_gen <= 0) return double(reads.weight_bytes);
  double kv = 0;
  for (int64_t s = 1; s <= n_gen; ++s) {
    kv += KvReadBytes(reads, depth + s, k_element_bytes, v_element_bytes);
  }
  return double(reads.weight_bytes) + kv / double(n_gen);
}

}  // namespace pipette::model
