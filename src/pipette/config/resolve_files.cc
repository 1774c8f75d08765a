#include "pipette/config/resolve_files.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include "pipette/convert/provenance.h"
#include "pipette/model/bundled.h"
#include "pipette/model/gguf.h"
#include "pipette/model/onnx_model.h"
#include "pipette/util/files.h"
#include "pipette/util/strings.h"
#include "pipette/util/utf8.h"

namespace pipette::config {
namespace fs = std::filesystem;

Result<std::string> ResolveDataPath(const Where& w, const Pos& pos, const std::string& written,
                                    const std::string& what) {
  fs::path p(written);
  std::vector<fs::path> tried;
  if (p.is_absolute()) {
    tried.push_back(p);
  } else {
    tried.push_back(fs::path(w.path()).parent_path() / p);
    tried.push_back(fs::current_path() / p);
  }
  for (const fs::path& t : tried) {
    std::error_code ec;
    if (fs::is_regular_file(t, ec)) return fs::absolute(t).lexically_normal().string();
    if (fs::is_directory(t, ec)) {
      return w.At(pos, fmt::format("'{}' is a directory, not a {}", written, what));
    }
  }
  std::string where;
  for (const fs::path& t : tried) where += fmt::format(" {}", t.lexically_normal().string());
  return w.At(pos, fmt::format("{} not found: '{}' (looked at:{})", what, written, where));
}

namespace {

// A converted ONNX model named by its folder or its model.onnx (relative to the experiment
// file, then to the current folder), or nullopt when `ref` names none.
std::optional<std::string> OnnxModelPath(const Where& w, const std::string& ref) {
  fs::path p(ref);
  std::vector<fs::path> tried = {p};
  if (p.is_relative()) tried = {fs::path(w.path()).parent_path() / p, fs::current_path() / p};
  for (const fs::path& t : tried) {
    std::error_code ec;
    if (fs::exists(t, ec) && model::IsOnnxModelPath(t.string())) {
      return fs::absolute(t).lexically_normal().string();
    }
  }
  return std::nullopt;
}

// The ONNX branch of ResolveModel: the facts a GGUF header gives, from pipette-model.json.
Status ResolveOnnxModel(const Where& w, const WrittenModel& written, const std::string& path,
                        ModelSpec* m) {
  auto onnx = model::ReadOnnxModel(path);
  if (!onnx) return w.At(written.pos, onnx.error().message);
  m->path = onnx->graph_path;
  m->source = "path";
  m->format = onnx->format;  // "onnx", or "mnn" for a folder converted for MNN
  if (m->name.empty()) m->name = fs::path(onnx->dir).filename().string();
  m->n_ctx_train = onnx->n_ctx_train;
  m->quant = model::OnnxQuantLabel(onnx->meta.value("variant", nlohmann::json::object()));
  m->provenance = convert::ConversionProvenance(*onnx, "");
  // The GGUF it was converted from, where it is still there: its tokenizer is checked against
  // that one's (a quantized variant's source is the fp32 folder's source).
  const nlohmann::json& meta = onnx->meta;
  const nlohmann::json* source = &meta;
  while (source->contains("source_folder") && (*source)["source_folder"].contains("meta")) {
    source = &(*source)["source_folder"]["meta"];
  }
  const std::string gguf = source->value("source", nlohmann::json::object()).value("path", "");
  if (std::error_code ec; !gguf.empty() && fs::is_regular_file(gguf, ec)) {
    m->tokenizer_source = gguf;
  }
  return {};
}

}  // namespace

Result<ModelSpec> ResolveModel(const Where& w, const WrittenModel& written,
                               const ResolveOptions& options) {
  ModelSpec m;
  m.line = written.pos.Line();
  m.name = written.name.value_or("");
  const std::string& ref = written.ref;
  if (const model::BundledModel* b = model::FindBundled(ref)) {
    fs::path file = fs::path(options.models_dir) / b->file;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      return w.At(written.pos, fmt::format("bundled model '{}' is not installed at {}: run "
                                           "scripts/fetch-models.sh (or `make models`)",
                                           ref, file.string()));
    }
    m.path = fs::absolute(file).lexically_normal().string();
    m.source = "bundled:" + b->name;
    if (m.name.empty()) m.name = b->name;
  } else if (auto onnx = OnnxModelPath(w, ref)) {
    if (auto st = ResolveOnnxModel(w, written, *onnx, &m); !st) return st.error();
    return m;
  } else {
    const bool looks_like_path =
        ref.find('/') != std::string::npos || ref.ends_with(".gguf") || ref.ends_with(".onnx");
    if (!looks_like_path) {
      std::vector<std::string> names;
      for (const auto& bm : model::BundledModels()) names.push_back(bm.name);
      std::string known;
      for (const auto& n : names) known += " " + n;
      return w.At(written.pos, fmt::format("unknown model '{}'{}: give a path to a .gguf file, "
                                           "a converted ONNX folder or a bundled name (known:{})",
                                           ref, DidYouMean(ref, names), known));
    }
    auto resolved = ResolveDataPath(w, written.pos, ref, "model file");
    if (!resolved) return resolved.error();
    m.path = *resolved;
    m.source = "path";
    if (m.name.empty()) m.name = fs::path(m.path).stem().string();
  }
  // A missing or corrupt model is bad input: check the file now, before anything is measured.
  auto gguf = model::ReadGguf(m.path);
  if (!gguf) return w.At(written.pos, gguf.error().message);
  m.format = "gguf";  // whether the runtimes load it is theirs to say (runtime/registry.h)
  if (auto ft = gguf->file_type()) m.quant = model::FileTypeName(*ft).value_or("");
  // A variant Pipette made, named by its path: it keeps its provenance (and so its origin).
  if (auto side = ReadFileToString(m.path + ".json")) {
    nlohmann::json p = nlohmann::json::parse(*side, nullptr, /*allow_exceptions=*/false);
    if (p.is_object() && p.value("format", "") == "pipette-variant/1" &&
        p.value("file", nlohmann::json::object()).value("size", uint64_t{0}) == gguf->file_size) {
      m.provenance = std::move(p);
    }
  }
  if (auto arch = gguf->architecture()) {
    auto it = gguf->metadata.find(*arch + ".context_length");
    if (it != gguf->metadata.end()) m.n_ctx_train = std::atoll(it->second.c_str());
  }
  return m;
}

Result<std::string> CorpusFile(const Where& w, const WrittenFile& corpus,
                               const ResolveOptions& options, const std::string& what) {
  if (corpus.path && !corpus.path->empty())
    return ResolveDataPath(w, corpus.pos, *corpus.path, what + " file");
  const fs::path def = fs::path(options.datasets_dir) / kDefaultPplCorpus;
  std::error_code ec;
  if (!fs::is_regular_file(def, ec)) {
    return w.At(corpus.pos, fmt::format("the default corpus is missing at {}", def.string()));
  }
  return fs::absolute(def).lexically_normal().string();
}

Result<std::string> DatasetFile(const Where& w, const WrittenFile& dataset,
                                const ResolveOptions& options, const std::string& workload,
                                const char* default_file) {
  if (!dataset.path || dataset.path->empty()) {
    return (fs::path(options.datasets_dir) / default_file).lexically_normal().string();
  }
  return ResolveDataPath(w, dataset.pos, *dataset.path, workload + " dataset");
}

Status CheckCorpusFitsAChunk(const Where& w, const Pos& pos, const std::string& path, int n_ctx,
                             const std::string& what) {
  std::error_code ec;
  const uintmax_t bytes = fs::file_size(path, ec);
  if (ec) return w.At(pos, fmt::format("cannot read the {} {}: {}", what, path, ec.message()));
  if (bytes == 0) return w.At(pos, fmt::format("the {} {} is empty", what, path));
  const uintmax_t need = static_cast<uintmax_t>(n_ctx) - 1;
  if (bytes < need) {
    return w.At(pos, fmt::format("the {} {} has {} bytes, too few for one chunk of {} tokens: a "
                                 "token covers at least one byte, so a chunk needs at least {} "
                                 "bytes (n_ctx less the BOS token a tokenizer may add)",
                                 what, path, bytes, n_ctx, need));
  }
  // Its text goes to the worker in JSON requests, which take only UTF-8: checked here, before
  // anything is measured, not when a request is made.
  auto text = ReadFileToString(path);
  if (!text) return w.At(pos, fmt::format("the {}: {}", what, text.error().message));
  if (auto bad = FirstInvalidUtf8(*text)) {
    return NotUtf8Error(path, *text, *bad);
  }
  return {};
}

}  // namespace pipette::config
