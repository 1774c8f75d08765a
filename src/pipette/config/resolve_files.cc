#include "pipette/config/resolve_files.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include "pipette/model/bundled.h"
#include "pipette/model/format.h"
#include "pipette/util/files.h"
#include "pipette/util/strings.h"
#include "pipette/util/utf8.h"

namespace pipette::config {
namespace fs = std::filesystem;

Result<std::string> ResolveDataPath(const Where& w, const Place& pos, const std::string& written,
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

// Where a reference that is not a bundled name may be: itself if absolute, else relative to the
// experiment file, then to the current folder.
std::vector<fs::path> PlacesOf(const Where& w, const std::string& ref) {
  fs::path p(ref);
  if (p.is_absolute()) return {p};
  return {fs::path(w.path()).parent_path() / p, fs::current_path() / p};
}

// The model at `path`, read by `format`: its facts, as every format gives them.
Result<ModelSpec> ReadModel(const Where& w, const WrittenModel& written,
                            const model::ModelFormat& format, const std::string& path,
                            ModelSpec m) {
  auto facts = format.read(path);
  if (!facts) return w.At(written.pos, facts.error().message);
  m.path = facts->path;
  m.format = format.name;  // whether the runtimes load it is theirs to say (runtime/registry.h)
  if (m.name.empty()) m.name = facts->name;
  m.n_ctx_train = facts->n_ctx_train;
  m.quant = facts->quant;
  m.provenance = std::move(facts->provenance);
  m.tokenizer_source = facts->tokenizer_source;
  return m;
}

}  // namespace

Result<ModelSpec> ResolveModel(const Where& w, const WrittenModel& written,
                               const ResolveOptions& options) {
  if (!options.formats)
    return RuntimeError("config::ResolveModel: ResolveOptions.formats is unset");
  const model::ModelFormats& formats = *options.formats;
  ModelSpec m;
  m.line = written.pos.line;
  m.name = written.name.value_or("");
  m.source = "path";
  const std::string& ref = written.ref;
  if (const model::BundledModel* b = model::FindBundled(ref)) {
    fs::path file = fs::path(options.models_dir) / b->file;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      return w.At(written.pos, fmt::format("bundled model '{}' is not installed at {}: run "
                                           "scripts/fetch-models.sh (or `make models`)",
                                           ref, file.string()));
    }
    m.source = "bundled:" + b->name;
    if (m.name.empty()) m.name = b->name;
    const std::string path = fs::absolute(file).lexically_normal().string();
    const model::ModelFormat* format = formats.Of(path);
    if (!format) {
      return w.At(written.pos, fmt::format("bundled model '{}' at {} is in no format Pipette "
                                           "reads",
                                           ref, path));
    }
    return ReadModel(w, written, *format, path, std::move(m));
  }
  // A path: the first place a format recognises, read by that format; else what is there.
  const std::vector<fs::path> places = PlacesOf(w, ref);
  for (const fs::path& place : places) {
    std::error_code ec;
    if (!fs::exists(place, ec)) continue;
    const std::string path = fs::absolute(place).lexically_normal().string();
    if (const model::ModelFormat* format = formats.Of(path)) {
      return ReadModel(w, written, *format, path, std::move(m));
    }
  }
  for (const fs::path& place : places) {
    std::error_code ec;
    if (!fs::exists(place, ec) || !formats.NamesAPath(ref)) continue;
    if (fs::is_directory(place, ec)) {
      return w.At(written.pos, fmt::format("'{}' is a directory, not a model file", ref));
    }
    return w.At(written.pos, fmt::format("'{}' is not a model in a format Pipette reads ({})", ref,
                                         formats.Abouts()));
  }
  if (!formats.NamesAPath(ref)) {
    std::vector<std::string> names;
    for (const auto& bm : model::BundledModels()) names.push_back(bm.name);
    std::string known;
    for (const auto& n : names) known += " " + n;
    return w.At(written.pos,
                fmt::format("unknown model '{}'{}: give a path to {} (known:{})", ref,
                            DidYouMean(ref, names), formats.Abouts({"a bundled name"}), known));
  }
  std::string where;
  for (const fs::path& t : places) where += fmt::format(" {}", t.lexically_normal().string());
  return w.At(written.pos, fmt::format("model file not found: '{}' (looked at:{})", ref, where));
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

Status CheckCorpusFitsAChunk(const Where& w, const Place& pos, const std::string& path, int n_ctx,
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
