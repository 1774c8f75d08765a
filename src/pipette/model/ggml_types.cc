#include "pipette/model/ggml_types.h"

#include <array>

namespace pipette::model {
namespace {

// enum ggml_type: name, elements per block, bytes per block (ggml.c type_traits).
constexpr std::array<GgmlType, 43> kGgmlTypes = {{
    {"f32", 1, 4},         // 0
    {"f16", 1, 2},         // 1
    {"q4_0", 32, 18},      // 2
    {"q4_1", 32, 20},      // 3
    {nullptr, 0, 0},       // 4 (Q4_2, removed)
    {nullptr, 0, 0},       // 5 (Q4_3, removed)
    {"q5_0", 32, 22},      // 6
    {"q5_1", 32, 24},      // 7
    {"q8_0", 32, 34},      // 8
    {"q8_1", 32, 36},      // 9
    {"q2_K", 256, 84},     // 10
    {"q3_K", 256, 110},    // 11
    {"q4_K", 256, 144},    // 12
    {"q5_K", 256, 176},    // 13
    {"q6_K", 256, 210},    // 14
    {"q8_K", 256, 292},    // 15
    {"iq2_xxs", 256, 66},  // 16
    {"iq2_xs", 256, 74},   // 17
    {"iq3_xxs", 256, 98},  // 18
    {"iq1_s", 256, 50},    // 19
    {"iq4_nl", 32, 18},    // 20
    {"iq3_s", 256, 110},   // 21
    {"iq2_s", 256, 82},    // 22
    {"iq4_xs", 256, 136},  // 23
    {"i8", 1, 1},          // 24
    {"i16", 1, 2},         // 25
    {"i32", 1, 4},         // 26
    {"i64", 1, 8},         // 27
    {"f64", 1, 8},         // 28
    {"iq1_m", 256, 56},    // 29
    {"bf16", 1, 2},        // 30
    {nullptr, 0, 0},       // 31 (Q4_0_4_4, removed from GGUF files)
    {nullptr, 0, 0},       // 32 (Q4_0_4_8, removed)
    {nullptr, 0, 0},       // 33 (Q4_0_8_8, removed)
    {"tq1_0", 256, 54},    // 34
    {"tq2_0", 256, 66},    // 35
    {nullptr, 0, 0},       // 36 (IQ4_NL_4_4, removed)
    {nullptr, 0, 0},       // 37 (IQ4_NL_4_8, removed)
    {nullptr, 0, 0},       // 38 (IQ4_NL_8_8, removed)
    {"mxfp4", 32, 17},     // 39
    {"nvfp4", 64, 36},     // 40
    {"q1_0", 128, 18},     // 41
    {"q2_0", 64, 18},      // 42
}};

}  // namespace

const GgmlType* FindGgmlType(uint32_t id) {
  if (id >= kGgmlTypes.size() || kGgmlTypes[id].name == nullptr) return nullptr;
  return &kGgmlTypes[id];
}

const GgmlType* FindGgmlType(std::string_view name) {
  for (const GgmlType& t : kGgmlTypes) {
    if (t.name != nullptr && name == t.name) return &t;
  }
  return nullptr;
}

}  // namespace pipette::model
