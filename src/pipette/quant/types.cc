#include "pipette/quant/types.h"

#include <algorithm>
#include <cctype>

#include "pipette/model/ggml_types.h"
#include "pipette/util/strings.h"

namespace pipette::quant {
namespace {

// The tensor types a recipe may name (llama-quantize quantizes to them without an importance
// matrix); their layouts are ggml's (model/ggml_types.h).
constexpr const char* kTensorTypes[] = {"f32",  "f16",    "bf16",   "q8_0", "q6_K",
                                        "q5_K", "q5_1",   "q5_0",   "q4_K", "q4_1",
                                        "q4_0", "iq4_nl", "iq4_xs", "q3_K", "q2_K"};

}  // namespace

const std::vector<std::string>& FileTypeNames() {
  static const std::vector<std::string> kNames = {
      "F32",    "F16",  "BF16", "Q8_0",   "Q6_K",   "Q5_K_M", "Q5_K_S", "Q5_1",   "Q5_0", "Q4_K_M",
      "Q4_K_S", "Q4_1", "Q4_0", "IQ4_NL", "IQ4_XS", "Q3_K_L", "Q3_K_M", "Q3_K_S", "Q2_K"};
  return kNames;
}

bool IsFileType(std::string_view name) {
  const auto& names = FileTypeNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

const std::vector<std::string>& TensorTypeNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> out;
    for (const char* name : kTensorTypes) out.push_back(name);
    return out;
  }();
  return kNames;
}

std::optional<std::string> CanonicalTensorType(std::string_view name) {
  const std::string want = ToLower(name);
  for (const char* type : kTensorTypes) {
    if (ToLower(type) == want) return std::string(type);
  }
  return std::nullopt;
}

std::optional<double> BitsPerWeight(std::string_view tensor_type) {
  for (const char* name : kTensorTypes) {
    if (tensor_type != name) continue;
    if (const model::GgmlType* t = model::FindGgmlType(tensor_type)) {
      return 8.0 * t->BytesPerElement();
    }
  }
  return std::nullopt;
}

bool IsFullPrecision(std::string_view file_type) {
  return file_type == "F32" || file_type == "F16" || file_type == "BF16";
}

}  // namespace pipette::quant
