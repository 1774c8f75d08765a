#include "pipette/model/onnx_model.h"

#include <fmt/format.h>

#include <filesystem>

#include "pipette/util/files.h"

namespace pipette::model {
namespace fs = std::filesystem;
namespace {

// An integer field of the meta, at least `min`.
Result<int64_t> IntField(const std::string& file, const nlohmann::json& meta, const char* key,
                         int64_t min) {
  auto it = meta.find(key);
  if (it == meta.end() || !it->is_number_integer() || it->get<int64_t>() < min) {
    return InputError(
        fmt::format("{}: field '{}' is missing or not an integer of at least {}", file, key, min));
  }
  return it->get<int64_t>();
}

}  // namespace

bool IsOnnxModelPath(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fs::exists(fs::path(path) / kOnnxMetaFile, ec);
  const fs::path ext = fs::path(path).extension();
  return ext == ".onnx" || ext == ".mnn";
}

Result<OnnxModel> ReadOnnxModel(const std::string& path) {
  std::error_code ec;
  fs::path dir = fs::absolute(path, ec).lexically_normal();
  if (!fs::is_directory(dir, ec) && (dir.extension() == ".onnx" || dir.extension() == ".mnn")) {
    dir = dir.parent_path();
  }
  if (!fs::is_directory(dir, ec)) {
    return InputError(fmt::format("{}: no such ONNX model folder", dir.string()));
  }
  OnnxModel m;
  m.dir = dir.string();
  m.graph_path = (dir / kOnnxGraphFile).string();
  const std::string meta_file = (dir / kOnnxMetaFile).string();
  if (!fs::is_regular_file(meta_file, ec)) {
    return InputError(
        fmt::format("{}: missing: an ONNX model folder Pipette converted holds it "
                    "(convert: in the experiment makes one)",
                    meta_file));
  }
  auto text = ReadFileToString(meta_file);
  if (!text) return InputError(text.error().message);
  m.meta = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (m.meta.is_discarded() || !m.meta.is_object()) {
    return InputError(fmt::format("{}: not a JSON object (corrupt?)", meta_file));
  }
  const std::string format = m.meta.value("format", "");
  if (format == kMnnModelFormat) {
    m.format = "mnn";
    m.graph_path = (dir / kMnnGraphFile).string();
  } else if (format != kOnnxModelFormat) {
    return InputError(fmt::format("{}: format '{}', expected '{}' (or '{}')", meta_file, format,
                                  kOnnxModelFormat, kMnnModelFormat));
  }
  const std::string graph_file = fs::path(m.graph_path).filename().string();
  if (!fs::is_regular_file(m.graph_path, ec)) {
    return InputError(
        fmt::format("{}: missing (the folder's {} names it)", m.graph_path, kOnnxMetaFile));
  }
  auto arch = m.meta.find("arch");
  if (arch == m.meta.end() || !arch->is_string() || arch->get<std::string>().empty()) {
    return InputError(fmt::format("{}: field 'arch' is missing or not a string", meta_file));
  }
  m.arch = arch->get<std::string>();
  for (auto [key, out, min] :
       {std::tuple{"n_ctx_train", &m.n_ctx_train, int64_t{0}},
        std::tuple{"n_layer", &m.n_layer, int64_t{1}}, std::tuple{"n_embd", &m.n_embd, int64_t{1}},
        std::tuple{"n_vocab", &m.n_vocab, int64_t{1}}}) {
    auto v = IntField(meta_file, m.meta, key, min);
    if (!v) return v.error();
    *out = *v;
  }
  const nlohmann::json variant = m.meta.value("variant", nlohmann::json::object());
  if (!variant.is_object() || !variant.value("name", nlohmann::json()).is_string()) {
    return InputError(fmt::format("{}: field 'variant' has no name", meta_file));
  }
  m.variant = variant.value("name", "");
  const nlohmann::json source = m.meta.value("source", nlohmann::json::object());
  if (source.is_object()) m.general_name = source.value("general_name", "");
  const nlohmann::json files = m.meta.value("files", nlohmann::json::object());
  if (!files.is_object() || !files.contains(graph_file) || !files[graph_file].is_string()) {
    return InputError(
        fmt::format("{}: field 'files' does not give the SHA-256 of {}", meta_file, graph_file));
  }
  for (const auto& [name, sha] : files.items()) {
    if (sha.is_string()) m.files[name] = sha.get<std::string>();
  }
  return m;
}

std::string OnnxQuantLabel(const nlohmann::json& variant) {
  const std::string name = variant.is_object() ? variant.value("name", "") : "";
  if (name == "int8-dynamic") return "W8A8 (int8 dynamic)";
  if (name == "int8") return "W8A32 (int8 weights)";  // MNN's weight quantization
  if (name == "int4-rtn" || name == "int4-gptq") {
    std::string label = fmt::format("W4A16 (int4 {}", name == "int4-rtn" ? "RTN" : "GPTQ");
    // The options at the top of the variant, or under "options" (as the converter writes them).
    const nlohmann::json& options = variant.contains("block_size") || !variant.contains("options")
                                        ? variant
                                        : variant["options"];
    if (auto b = options.find("block_size"); b != options.end() && b->is_number_integer()) {
      label += fmt::format(", block {}", b->get<int64_t>());
    }
    if (auto s = options.find("symmetric"); s != options.end() && s->is_boolean() && !*s) {
      label += ", asymmetric";
    }
    return label + ")";
  }
  return name;  // fp32, fp16
}

}  // namespace pipette::model
