#include "quantize_options.h"

#include <gguf.h>

#include <cctype>
#include <cstring>
#include <memory>
#include <optional>
#include <regex>

namespace pipette::llama_worker {
namespace {

// llama-quantize's types (tools/quantize/quantize.cpp), without its aliases and COPY.
constexpr FileType kFileTypes[] = {
    {"F32", LLAMA_FTYPE_ALL_F32},
    {"F16", LLAMA_FTYPE_MOSTLY_F16},
    {"BF16", LLAMA_FTYPE_MOSTLY_BF16},
    {"Q8_0", LLAMA_FTYPE_MOSTLY_Q8_0},
    {"Q6_K", LLAMA_FTYPE_MOSTLY_Q6_K},
    {"Q5_K_M", LLAMA_FTYPE_MOSTLY_Q5_K_M},
    {"Q5_K_S", LLAMA_FTYPE_MOSTLY_Q5_K_S},
    {"Q5_1", LLAMA_FTYPE_MOSTLY_Q5_1},
    {"Q5_0", LLAMA_FTYPE_MOSTLY_Q5_0},
    {"Q4_K_M", LLAMA_FTYPE_MOSTLY_Q4_K_M},
    {"Q4_K_S", LLAMA_FTYPE_MOSTLY_Q4_K_S},
    {"Q4_1", LLAMA_FTYPE_MOSTLY_Q4_1},
    {"Q4_0", LLAMA_FTYPE_MOSTLY_Q4_0},
    {"IQ4_NL", LLAMA_FTYPE_MOSTLY_IQ4_NL},
    {"IQ4_XS", LLAMA_FTYPE_MOSTLY_IQ4_XS},
    {"Q3_K_L", LLAMA_FTYPE_MOSTLY_Q3_K_L},
    {"Q3_K_M", LLAMA_FTYPE_MOSTLY_Q3_K_M},
    {"Q3_K_S", LLAMA_FTYPE_MOSTLY_Q3_K_S},
    {"IQ3_M", LLAMA_FTYPE_MOSTLY_IQ3_M},
    {"IQ3_S", LLAMA_FTYPE_MOSTLY_IQ3_S},
    {"IQ3_XS", LLAMA_FTYPE_MOSTLY_IQ3_XS},
    {"IQ3_XXS", LLAMA_FTYPE_MOSTLY_IQ3_XXS},
    {"Q2_K", LLAMA_FTYPE_MOSTLY_Q2_K},
    {"Q2_K_S", LLAMA_FTYPE_MOSTLY_Q2_K_S},
    {"IQ2_M", LLAMA_FTYPE_MOSTLY_IQ2_M},
    {"IQ2_S", LLAMA_FTYPE_MOSTLY_IQ2_S},
    {"IQ2_XS", LLAMA_FTYPE_MOSTLY_IQ2_XS},
    {"IQ2_XXS", LLAMA_FTYPE_MOSTLY_IQ2_XXS},
    {"IQ1_M", LLAMA_FTYPE_MOSTLY_IQ1_M},
    {"IQ1_S", LLAMA_FTYPE_MOSTLY_IQ1_S},
    {"TQ2_0", LLAMA_FTYPE_MOSTLY_TQ2_0},
    {"TQ1_0", LLAMA_FTYPE_MOSTLY_TQ1_0},
    {"MXFP4_MOE", LLAMA_FTYPE_MOSTLY_MXFP4_MOE},
};

// The tensor types ggml can quantize (convert) to: those ggml_quantize_chunk handles.
constexpr ggml_type kTensorTypes[] = {
    GGML_TYPE_F32,     GGML_TYPE_F16,    GGML_TYPE_BF16,   GGML_TYPE_Q8_0,   GGML_TYPE_Q6_K,
    GGML_TYPE_Q5_K,    GGML_TYPE_Q5_1,   GGML_TYPE_Q5_0,   GGML_TYPE_Q4_K,   GGML_TYPE_Q4_1,
    GGML_TYPE_Q4_0,    GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_Q3_K,   GGML_TYPE_IQ3_S,
    GGML_TYPE_IQ3_XXS, GGML_TYPE_Q2_K,   GGML_TYPE_IQ2_S,  GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_XXS,
    GGML_TYPE_IQ1_M,   GGML_TYPE_IQ1_S,  GGML_TYPE_TQ2_0,  GGML_TYPE_TQ1_0,  GGML_TYPE_MXFP4,
    GGML_TYPE_NVFP4,   GGML_TYPE_Q2_0,   GGML_TYPE_Q1_0,
};

// The tensors llama.cpp quantizes without importance data (llama-quant.cpp).
constexpr const char* kNoImatrixTensors[] = {"token_embd.weight", "per_layer_token_embd.weight",
                                             "output.weight"};

bool EqualsIgnoringCase(const std::string& a, const char* b) {
  const size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::optional<ggml_type> FindTensorType(const std::string& name) {
  for (ggml_type type : kTensorTypes) {
    if (EqualsIgnoringCase(name, ggml_type_name(type))) return type;
  }
  return std::nullopt;
}

template <typename T, typename NameOf>
std::string NameList(const T& items, NameOf name_of) {
  std::string list;
  for (const auto& item : items) list += (list.empty() ? "" : ", ") + std::string(name_of(item));
  return list;
}

}  // namespace

const FileType* FindFileType(const std::string& name) {
  for (const FileType& type : kFileTypes) {
    if (EqualsIgnoringCase(name, type.name)) return &type;
  }
  return nullptr;
}

std::string FileTypeNames() {
  return NameList(kFileTypes, [](const FileType& t) { return t.name; });
}

bool IsFloatFileType(llama_ftype ftype) {
  return ftype == LLAMA_FTYPE_ALL_F32 || ftype == LLAMA_FTYPE_MOSTLY_F16 ||
         ftype == LLAMA_FTYPE_MOSTLY_BF16;
}

Result<std::vector<TensorOverride>> ResolveOverrides(
    const std::vector<protocol::TensorTypeOverride>& requested) {
  std::vector<TensorOverride> overrides;
  for (size_t i = 0; i < requested.size(); ++i) {
    const protocol::TensorTypeOverride& item = requested[i];
    const std::string where = "overrides[" + std::to_string(i) + "]";
    TensorOverride entry{item.pattern, GGML_TYPE_COUNT};
    // llama.cpp compiles the pattern as a std::regex (ECMAScript) and matches it with
    // regex_search on each tensor name: compile it here first, to refuse a bad one politely.
    std::regex compiled;
    try {
      compiled = std::regex(entry.pattern);
    } catch (const std::regex_error& e) {
      return Error{where + ".pattern '" + entry.pattern + "' is not a valid regular expression (" +
                   e.what() + ")"};
    }
    const std::optional<ggml_type> type = FindTensorType(item.type);
    if (!type) {
      return Error{where + ".type '" + item.type + "' is not a tensor type; known: " +
                   NameList(kTensorTypes, [](ggml_type t) { return ggml_type_name(t); })};
    }
    // llama.cpp has no importance data for these tensors, and aborts the process when one is
    // quantized to a type that cannot do without it.
    if (ggml_quantize_requires_imatrix(*type)) {
      for (const char* name : kNoImatrixTensors) {
        if (std::regex_search(name, compiled)) {
          return Error{where + " would quantize " + name + " to " + ggml_type_name(*type) +
                       ", which needs importance data that llama.cpp never has for it"};
        }
      }
    }
    entry.type = *type;
    overrides.push_back(std::move(entry));
  }
  return overrides;
}

Result<int64_t> MatchOverrides(const std::string& input,
                               const std::vector<TensorOverride>& overrides) {
  int64_t n_tensors = 0;
  if (overrides.empty()) return n_tensors;
  const gguf_init_params params{/*no_alloc=*/true, /*ctx=*/nullptr};
  const std::unique_ptr<gguf_context, decltype(&gguf_free)> gguf(
      gguf_init_from_file(input.c_str(), params), &gguf_free);
  if (!gguf) return Error{"cannot read " + input + " as a GGUF file"};
  const int64_t split_count = gguf_find_key(gguf.get(), "split.count");
  if (split_count >= 0) return n_tensors;  // the other shards' tensors are not in this file
  std::vector<std::regex> patterns;
  for (const TensorOverride& o : overrides) patterns.emplace_back(o.pattern);
  std::vector<int64_t> matches(overrides.size(), 0);
  for (int64_t i = 0; i < gguf_get_n_tensors(gguf.get()); ++i) {
    if (gguf_get_tensor_ne(gguf.get(), i)[1] <= 1) continue;  // 1-D: never quantized
    const std::string name = gguf_get_tensor_name(gguf.get(), i);
    bool matched = false;
    for (size_t p = 0; p < patterns.size(); ++p) {
      if (std::regex_search(name, patterns[p])) {
        ++matches[p];
        matched = true;
      }
    }
    if (matched) ++n_tensors;
  }
  for (size_t p = 0; p < patterns.size(); ++p) {
    if (matches[p] == 0) {
      return Error{"overrides[" + std::to_string(p) + "].pattern '" + overrides[p].pattern +
                   "' matches no weight tensor of " + input +
                   " (tensor names look like blk.0.attn_q.weight; in JSON a regex's \\ is "
                   "written \\\\)"};
    }
  }
  return n_tensors;
}

}  // namespace pipette::llama_worker
