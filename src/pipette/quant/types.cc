#include "pipette/quant/types.h"

#include <algorithm>
#include <cctype>

#include "pipette/util/strings.h"

namespace pipette::quant {
namespace {

struct TensorFormat {
  const char* name;
  int block;        // weights per block
  int block_bytes;  // bytes per block
};

// ggml's block layouts (ggml-common.h): e.g. block_q4_0 = fp16 scale + 16 bytes of nibbles.
constexpr TensorFormat kTensorFormats[] = {
    {"f32", 1, 4},        {"f16", 1, 2},      {"bf16", 1, 2},    {"q8_0", 32, 34},
    {"q6_K", 256, 210},   {"q5_K", 256, 176}, {"q5_1", 32, 24},  {"q5_0", 32, 22},
    {"q4_K", 256, 144},   {"q4_1", 32, 20},   {"q4_0", 32, 18},  {"iq4_nl", 32, 18},
    {"iq4_xs", 256, 136}, {"q3_K", 256, 110}, {"q2_K", 256, 84},
};

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
    for (const TensorFormat& f : kTensorFormats) out.push_back(f.name);
    return out;
  }();
  return kNames;
}

std::optional<std::string> CanonicalTensorType(std::string_view name) {
  const std::string want = ToLower(name);
  for (const TensorFormat& f : kTensorFormats) {
    if (ToLower(f.name) == want) return std::string(f.name);
  }
  return std::nullopt;
}

std::optional<double> BitsPerWeight(std::string_view tensor_type) {
  for (const TensorFormat& f : kTensorFormats) {
    if (tensor_type == f.name) return 8.0 * f.block_bytes / f.block;
  }
  return std::nullopt;
}

bool IsFullPrecision(std::string_view file_type) {
  return file_type == "F32" || file_type == "F16" || file_type == "BF16";
}

}  // namespace pipette::quant
