// A quantized variant of a model: what defines it (base file, type, options), where it is cached,
// and the provenance kept with every result measured on it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pipette::quant {

// Tensors whose name matches `pattern` (a regular expression) get `type` (a ggml tensor type).
struct TensorOverride {
  std::string pattern;
  std::string type;
};

// An importance matrix collected with the base model over the first `chunks` chunks of `n_ctx`
// tokens of a corpus.
struct ImatrixSpec {
  std::string corpus;  // absolute path
  std::string corpus_sha256;
  int n_ctx = 512;
  int chunks = 16;
};

struct VariantSpec {
  std::string name;   // what the experiment calls it, e.g. "smollm2-135m-instruct-q4_1:Q4_K_M"
  std::string label;  // the quantization as reports show it: "Q4_K_M", "Q4_0+imatrix", "mix"
  std::string base_name;
  std::string base_path;
  std::string base_sha256;
  std::string base_quant;  // the base file's type ("Q4_1"); "" when unknown
  // When the base is itself a variant made from a quantized file (an F16 made from Q4_1), the
  // type its weights came from ("Q4_1"); "" otherwise.
  std::string base_origin;
  std::string base_source;  // "bundled:<name>" or "path"
  std::string type;         // file type asked of llama.cpp (Q4_K_M, F16, ...)
  std::vector<TensorOverride> overrides;
  std::optional<ImatrixSpec> imatrix;

  // A re-quantization: the base already lost precision (its type, or the type its weights came
  // from, is anything but F32/F16/BF16).
  bool Requantized() const;
  // Everything that defines the variant's bytes, canonical.
  nlohmann::json Definition() const;
  // SHA-256 of Definition(): the cache key.
  std::string CacheKey() const;
  // File name in the cache: "<base stem>.<label>.<first 12 hex of the key>.gguf".
  std::string FileName() const;
  // What every result measured on this variant carries: Definition() plus a plain-words note on
  // re-quantization. The maker adds how and when it was made.
  nlohmann::json Provenance() const;
};

// The imatrix file of a variant (cache key from the base and the ImatrixSpec).
std::string ImatrixFileName(const VariantSpec& v);

// "re-quantized from Q4_1" / "quantized from F16" / "converted from Q4_1" (a converted ONNX
// model, convert/provenance.h): how reports qualify the type.
std::string OriginNote(const nlohmann::json& provenance);

}  // namespace pipette::quant
