#include "pipette/testing/onnx_folder.h"

#include <filesystem>
#include <fstream>

namespace pipette::testing {

nlohmann::json OnnxMeta(const nlohmann::json& variant) {
  return {{"format", "pipette-onnx/1"},
          {"converter", {{"name", "pipette-convert"}, {"version", "1"}}},
          {"source",
           {{"path", "/models/SmolLM2-135M-Instruct.Q4_1.gguf"},
            {"sha256", std::string(64, 'a')},
            {"file_type", "Q4_1"},
            {"general_name", "SmolLM2 135M Instruct"}}},
          {"variant", variant},
          {"arch", "llama"},
          {"n_layer", 30},
          {"n_head", 9},
          {"n_head_kv", 3},
          {"head_dim", 64},
          {"n_embd", 576},
          {"n_vocab", 49152},
          {"n_ctx_train", 8192},
          {"files",
           {{"model.onnx", std::string(64, 'b')},
            {"model.onnx.data", std::string(64, 'c')},
            {"tokenizer.json", std::string(64, 'd')}}},
          {"seconds", 1.5}};
}

void WriteOnnxFolder(const std::string& dir, const nlohmann::json& meta) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/pipette-model.json") << meta.dump();
  std::ofstream(dir + "/model.onnx") << "not a graph";
  std::ofstream(dir + "/model.onnx.data") << "weights";
  std::ofstream(dir + "/tokenizer.json") << "{}";
}

}  // namespace pipette::testing
