#include "pipette/model_formats/converted_folder.h"

#include <filesystem>

#include "pipette/convert/provenance.h"
#include "pipette/model/onnx_model.h"
#include "pipette/util/files.h"
#include "pipette/util/sha256.h"

namespace pipette::model_formats {
namespace fs = std::filesystem;

std::string ConvertedFolderFormat(const std::string& path) {
  std::error_code ec;
  if (!model::IsOnnxModelPath(path)) return "";
  // The folder's meta says which, for the folder and for its graph file (the reader loads the
  // graph the meta names); a meta that cannot say leaves it to the graph file's name, and the
  // reader refuses what is wrong.
  const bool folder = fs::is_directory(path, ec);
  const fs::path dir = folder ? fs::path(path) : fs::path(path).parent_path();
  const std::string by_name = !folder && fs::path(path).extension() == ".mnn" ? "mnn" : "onnx";
  auto text = ReadFileToString((dir / model::kOnnxMetaFile).string());
  if (!text) return by_name;
  const nlohmann::json meta = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object() || !meta.value("format", nlohmann::json()).is_string()) return by_name;
  const std::string format = meta["format"].get<std::string>();
  if (format == model::kMnnModelFormat) return "mnn";
  if (format == model::kOnnxModelFormat) return "onnx";
  return by_name;
}

Result<model::ModelFileFacts> ReadConvertedFolder(const std::string& path) {
  auto onnx = model::ReadOnnxModel(path);
  if (!onnx) return onnx.error();
  model::ModelFileFacts m;
  m.path = onnx->graph_path;
  m.name = fs::path(onnx->dir).filename().string();
  m.n_ctx_train = onnx->n_ctx_train;
  m.quant = model::OnnxQuantLabel(onnx->meta.value("variant", nlohmann::json::object()));
  m.provenance = convert::ConversionProvenance(*onnx, "");
  // The GGUF it was converted from, where it is still there (a quantized variant's source is
  // the fp32 folder's source).
  const nlohmann::json* source = &onnx->meta;
  while (source->contains("source_folder") && (*source)["source_folder"].contains("meta")) {
    source = &(*source)["source_folder"]["meta"];
  }
  const std::string gguf = source->value("source", nlohmann::json::object()).value("path", "");
  if (std::error_code ec; !gguf.empty() && fs::is_regular_file(gguf, ec)) {
    m.tokenizer_source = gguf;
  }
  return m;
}

Result<model::ModelFacts> MeasureConvertedFolder(const std::string& path) {
  auto onnx = model::ReadOnnxModel(path);
  if (!onnx) return onnx.error();
  model::ModelFacts f;
  f.info["architecture"] = onnx->arch;
  f.info["variant"] = onnx->variant;
  f.info["quant"] = model::OnnxQuantLabel(onnx->meta.value("variant", nlohmann::json::object()));
  f.info["token_reads"] = {{"na", "bytes per token are known for GGUF models only"}};
  f.info["n_layer"] = onnx->n_layer;
  if (!onnx->general_name.empty()) f.info["general_name"] = onnx->general_name;
  for (const auto& [name, meta_sha] : onnx->files) {
    const std::string file = (fs::path(onnx->dir) / name).string();
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    auto sha = Sha256File(file);
    if (!sha) return sha.error();
    f.info["files_sha256"][name] = *sha;
    if (file == onnx->graph_path) f.sha256 = *sha;
    if (name != "tokenizer.json") f.file_size += static_cast<int64_t>(fs::file_size(file, ec));
  }
  return f;
}

}  // namespace pipette::model_formats
