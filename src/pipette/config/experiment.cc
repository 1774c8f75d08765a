#include "pipette/config/experiment.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string_view>
#include <utility>

#include "pipette/config/yaml_helpers.h"
#include "pipette/model/bundled.h"
#include "pipette/model/gguf.h"
#include "pipette/quality/datasets.h"
#include "pipette/quant/types.h"
#include "pipette/util/files.h"
#include "pipette/util/sha256.h"
#include "pipette/util/strings.h"

namespace pipette::config {
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTopKeys = {
    "quality", "name",        "description", "models",  "runtime", "runtimes", "device",  "params",
    "tests",   "repetitions", "warmup",      "timeout", "seed",    "store",    "quantize"};
const std::vector<std::string> kRuntimes = {"llama.cpp"};

Result<ModelSpec> ParseModel(const Where& w, const YAML::Node& node, const LoadOptions& opt) {
  ModelSpec m;
  m.line = Line(node);
  std::string written;
  if (node.IsMap()) {
    KeySet keys;
    for (const auto& kv : node) {
      if (auto st = keys.Add(w, kv.first, "in a model "); !st) return st.error();
      const std::string key = kv.first.Scalar();
      if (key == "path") {
        auto s = Scalar(w, kv.second, "models[].path");
        if (!s) return s.error();
        written = *s;
      } else if (key == "name") {
        auto s = Scalar(w, kv.second, "models[].name");
        if (!s) return s.error();
        m.name = *s;
      } else {
        return w.At(kv.first, fmt::format("unknown key '{}' in a model{}", key,
                                          DidYouMean(key, {"path", "name"})));
      }
    }
    if (written.empty()) return w.At(node, "a model needs 'path:'");
  } else {
    auto s = Scalar(w, node, "a model");
    if (!s) return s.error();
    written = *s;
  }
  if (const model::BundledModel* b = model::FindBundled(written)) {
    fs::path file = fs::path(opt.models_dir) / b->file;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      return w.At(node, fmt::format("bundled model '{}' is not installed at {}: run "
                                    "scripts/fetch-models.sh (or `make models`)",
                                    written, file.string()));
    }
    m.path = fs::absolute(file).lexically_normal().string();
    m.source = "bundled:" + b->name;
    if (m.name.empty()) m.name = b->name;
  } else {
    const bool looks_like_path =
        written.find('/') != std::string::npos || written.ends_with(".gguf");
    if (!looks_like_path) {
      std::vector<std::string> names;
      for (const auto& bm : model::BundledModels()) names.push_back(bm.name);
      std::string known;
      for (const auto& n : names) known += " " + n;
      return w.At(node, fmt::format("unknown model '{}'{}: give a path to a .gguf file or a "
                                    "bundled name (known:{})",
                                    written, DidYouMean(written, names), known));
    }
    auto resolved = ResolveDataPath(w, node, written, "model file");
    if (!resolved) return resolved.error();
    m.path = *resolved;
    m.source = "path";
    if (m.name.empty()) m.name = fs::path(m.path).stem().string();
  }
  // A missing or corrupt model is bad input: check the file now, before anything is measured.
  auto gguf = model::ReadGguf(m.path);
  if (!gguf) return w.At(node, gguf.error().message);
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

Result<RuntimeSpec> ParseRuntime(const Where& w, const YAML::Node& node, const LoadOptions& opt) {
  RuntimeSpec r;
  r.line = Line(node);
  YAML::Node name_node = node;
  if (node.IsMap()) {
    KeySet keys;
    for (const auto& kv : node) {
      if (auto st = keys.Add(w, kv.first, "in a runtime "); !st) return st.error();
      const std::string key = kv.first.Scalar();
      if (key == "name") {
        name_node.reset(kv.second);  // rebinds: `=` would overwrite `node` itself
      } else if (key == "worker") {
        auto s = Scalar(w, kv.second, "runtimes[].worker");
        if (!s) return s.error();
        r.worker = *s;
      } else {
        return w.At(kv.first, fmt::format("unknown key '{}' in a runtime{}", key,
                                          DidYouMean(key, {"name", "worker"})));
      }
    }
    if (name_node.IsMap()) return w.At(node, "a runtime needs 'name:'");
  }
  auto s = Scalar(w, name_node, "a runtime");
  if (!s) return s.error();
  r.name = *s;
  if (std::find(kRuntimes.begin(), kRuntimes.end(), r.name) == kRuntimes.end()) {
    return w.At(name_node, fmt::format("unknown runtime '{}'{} (known: llama.cpp)", r.name,
                                       DidYouMean(r.name, kRuntimes)));
  }
  if (r.worker.empty()) {
    r.worker = (fs::path(opt.workers_dir) / "pipette-worker-llama").string();
  } else {
    fs::path p(r.worker);
    if (p.is_relative()) p = fs::path(w.path()).parent_path() / p;
    r.worker = fs::absolute(p).lexically_normal().string();
  }
  std::error_code ec;
  if (!fs::is_regular_file(r.worker, ec)) {
    return w.At(name_node, fmt::format("worker program for '{}' not found at {}: build it with "
                                       "`make build`",
                                       r.name, r.worker));
  }
  return r;
}

// The corpus a workload names (relative to the experiment file, then to the current folder), or
// the shipped one when it names none; either way the file must be there.
Result<std::string> CorpusFile(const Where& w, const YAML::Node& node, const std::string& written,
                               const LoadOptions& opt, const std::string& what) {
  if (!written.empty()) return ResolveDataPath(w, node, written, what + " file");
  const fs::path def = fs::path(opt.datasets_dir) / kDefaultPplCorpus;
  std::error_code ec;
  if (!fs::is_regular_file(def, ec)) {
    return w.At(node, fmt::format("the default corpus is missing at {}", def.string()));
  }
  return fs::absolute(def).lexically_normal().string();
}

// A corpus is read in chunks of n_ctx tokens, and one that cannot fill a single chunk measures
// nothing. Its tokens are known only once a model has tokenized it, but a token covers at least
// one byte: a file of fewer bytes than n_ctx, less the one BOS token a tokenizer may add, can
// never fill a chunk, whatever the model.
Status CheckCorpusFitsAChunk(const Where& w, const YAML::Node& node, const std::string& path,
                             int n_ctx, const std::string& what) {
  std::error_code ec;
  const uintmax_t bytes = fs::file_size(path, ec);
  if (ec) return w.At(node, fmt::format("cannot read the {} {}: {}", what, path, ec.message()));
  if (bytes == 0) return w.At(node, fmt::format("the {} {} is empty", what, path));
  const uintmax_t need = static_cast<uintmax_t>(n_ctx) - 1;
  if (bytes < need) {
    return w.At(node, fmt::format("the {} {} has {} bytes, too few for one chunk of {} tokens: a "
                                  "token covers at least one byte, so a chunk needs at least {} "
                                  "bytes (n_ctx less the BOS token a tokenizer may add)",
                                  what, path, bytes, n_ctx, need));
  }
  return {};
}

Result<PplSpec> ParsePpl(const Where& w, const YAML::Node& node, const LoadOptions& opt) {
  PplSpec spec;
  spec.line = Line(node);
  std::string corpus;
  YAML::Node corpus_node = node;
  if (node.IsMap()) {
    KeySet keys;
    for (const auto& kv : node) {
      if (auto st = keys.Add(w, kv.first, "in ppl "); !st) return st.error();
      const std::string key = kv.first.Scalar();
      if (key == "corpus") {
        auto s = Scalar(w, kv.second, "ppl.corpus");
        if (!s) return s.error();
        corpus = *s;
        corpus_node.reset(kv.second);
      } else if (key == "n_ctx") {
        auto i = Integer(w, kv.second, "ppl.n_ctx", 4, 1 << 20);
        if (!i) return i.error();
        spec.n_ctx = static_cast<int>(*i);
      } else if (key == "chunks") {
        auto i = Integer(w, kv.second, "ppl.chunks", 0, 1 << 30);
        if (!i) return i.error();
        spec.chunks = static_cast<int>(*i);
      } else {
        return w.At(kv.first, fmt::format("unknown key '{}' in ppl{}", key,
                                          DidYouMean(key, {"corpus", "n_ctx", "chunks"})));
      }
    }
  } else if (!node.IsNull() && !(node.IsScalar() && node.Scalar() == "true")) {
    return w.At(node, "ppl: takes a mapping (corpus:, n_ctx:, chunks:) or nothing");
  }
  auto file = CorpusFile(w, corpus_node, corpus, opt, "corpus");
  if (!file) return file.error();
  spec.corpus = *file;
  if (auto st = CheckCorpusFitsAChunk(w, corpus_node, spec.corpus, spec.n_ctx, "ppl corpus"); !st) {
    return st.error();
  }
  return spec;
}

// template_options: of gen: option names and their values as JSON scalars.
Status ParseTemplateOptions(const Where& w, const YAML::Node& node, nlohmann::json* options) {
  if (!node.IsMap()) {
    return w.At(node,
                "gen.template_options takes a mapping of option names to values "
                "(e.g. {enable_thinking: false})");
  }
  KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in gen.template_options "); !st) return st;
    const std::string name = kv.first.Scalar();
    auto value = JsonScalar(w, kv.second, "gen.template_options." + name);
    if (!value) return value.error();
    (*options)[name] = *value;
  }
  return {};
}

// dataset: and limit: of a dataset workload (mc, gen), and gen's template_options: (when
// `template_options` is given).
Status ParseDatasetOptions(const Where& w, const YAML::Node& node, const LoadOptions& opt,
                           const std::string& workload, const char* default_file,
                           std::string* dataset, int* limit,
                           nlohmann::json* template_options = nullptr) {
  std::string written;
  YAML::Node dataset_node = node;
  if (node.IsMap()) {
    KeySet keys;
    for (const auto& kv : node) {
      if (auto st = keys.Add(w, kv.first, "in " + workload + " "); !st) return st;
      const std::string key = kv.first.Scalar();
      if (key == "dataset") {
        auto s = Scalar(w, kv.second, workload + ".dataset");
        if (!s) return s.error();
        written = *s;
        dataset_node.reset(kv.second);
      } else if (key == "limit") {
        auto i = Integer(w, kv.second, workload + ".limit", 0, 1 << 30);
        if (!i) return i.error();
        *limit = static_cast<int>(*i);
      } else if (key == "template_options" && template_options) {
        if (auto st = ParseTemplateOptions(w, kv.second, template_options); !st) return st;
      } else {
        std::vector<std::string> known = {"dataset", "limit"};
        if (template_options) known.push_back("template_options");
        return w.At(kv.first,
                    fmt::format("unknown key '{}' in {}{}", key, workload, DidYouMean(key, known)));
      }
    }
  } else if (!node.IsNull()) {
    return w.At(node, workload + (template_options
                                      ? ": takes a mapping (dataset:, limit:, template_options:) "
                                        "or nothing"
                                      : ": takes a mapping (dataset:, limit:) or nothing"));
  }
  if (written.empty()) {
    *dataset = (fs::path(opt.datasets_dir) / default_file).lexically_normal().string();
    return {};
  }
  auto p = ResolveDataPath(w, dataset_node, written, workload + " dataset");
  if (!p) return p.error();
  *dataset = *p;
  return {};
}

Result<McSpec> ParseMc(const Where& w, const YAML::Node& node, const LoadOptions& opt) {
  McSpec spec;
  spec.line = Line(node);
  if (auto st =
          ParseDatasetOptions(w, node, opt, "mc", kDefaultMcDataset, &spec.dataset, &spec.limit);
      !st) {
    return st.error();
  }
  // A malformed line is bad input: it names the dataset file and line.
  auto ds = quality::LoadMcDataset(spec.dataset);
  if (!ds) return ds.error();
  spec.n_items = static_cast<int64_t>(ds->items.size());
  for (const auto& item : ds->items) {
    for (const auto& choice : item.choices) {
      spec.max_bytes = std::max<int64_t>(
          spec.max_bytes, int64_t(McPrompt(item.question).size() + McContinuation(choice).size()));
    }
  }
  return spec;
}

Result<GenSpec> ParseGen(const Where& w, const YAML::Node& node, const LoadOptions& opt) {
  GenSpec spec;
  spec.line = Line(node);
  if (auto st = ParseDatasetOptions(w, node, opt, "gen", kDefaultGenDataset, &spec.dataset,
                                    &spec.limit, &spec.template_options);
      !st) {
    return st.error();
  }
  auto ds = quality::LoadGenDataset(spec.dataset);
  if (!ds) return ds.error();
  spec.n_items = static_cast<int64_t>(ds->items.size());
  for (const auto& item : ds->items) {
    // Bytes bound tokens; 64 tokens for the template's own markers.
    spec.max_need = std::max<int64_t>(
        spec.max_need, int64_t(item.prompt.size() + item.system.size()) + 64 + item.max_tokens);
  }
  return spec;
}

Result<KldSpec> ParseKld(const Where& w, const YAML::Node& node, const LoadOptions& opt) {
  KldSpec spec;
  spec.line = Line(node);
  if (!node.IsMap()) return w.At(node, "kld: needs at least 'reference:' (a model of this file)");
  std::string corpus;
  YAML::Node corpus_node = node;
  KeySet keys;
  std::optional<YAML::Node> mode_node, top_k_node;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in kld "); !st) return st.error();
    const std::string key = kv.first.Scalar();
    if (key == "reference") {
      auto s = Scalar(w, kv.second, "kld.reference");
      if (!s) return s.error();
      spec.reference = *s;
    } else if (key == "mode") {
      auto s = Scalar(w, kv.second, "kld.mode");
      if (!s) return s.error();
      if (*s != "full" && *s != "topk") {
        return w.At(kv.second, fmt::format("kld.mode must be full or topk, not '{}'{}", *s,
                                           DidYouMean(*s, {"full", "topk"})));
      }
      spec.mode = *s == "topk" ? KldMode::kTopK : KldMode::kFull;
      mode_node = kv.second;
    } else if (key == "corpus") {
      auto s = Scalar(w, kv.second, "kld.corpus");
      if (!s) return s.error();
      corpus = *s;
      corpus_node.reset(kv.second);
    } else if (key == "n_ctx" || key == "chunks" || key == "top_k") {
      auto i = Integer(w, kv.second, "kld." + key,
                       key == "chunks"  ? 0
                       : key == "top_k" ? 1
                                        : 4,
                       key == "top_k" ? 1000 : 1 << 20);
      if (!i) return i.error();
      (key == "n_ctx" ? spec.n_ctx : key == "chunks" ? spec.chunks : spec.top_k) = int(*i);
      if (key == "top_k") top_k_node = kv.second;
    } else {
      return w.At(kv.first, fmt::format("unknown key '{}' in kld{}", key,
                                        DidYouMean(key, {"reference", "corpus", "n_ctx", "chunks",
                                                         "mode", "top_k"})));
    }
  }
  // `top_k` asks for the compact mode; with `mode: full` it would be ignored, so it is refused.
  if (top_k_node) {
    if (mode_node && spec.mode == KldMode::kFull) {
      return w.At(*top_k_node,
                  "kld.top_k applies to mode: topk only (mode: full compares every "
                  "id of the vocabulary)");
    }
    spec.mode = KldMode::kTopK;
  }
  if (spec.reference.empty()) return w.At(node, "kld: needs 'reference:' (a model of this file)");
  auto file = CorpusFile(w, corpus_node, corpus, opt, "corpus");
  if (!file) return file.error();
  spec.corpus = *file;
  if (auto st = CheckCorpusFitsAChunk(w, corpus_node, spec.corpus, spec.n_ctx, "kld corpus"); !st) {
    return st.error();
  }
  return spec;
}

Status ParseQuality(const Where& w, const YAML::Node& node, const LoadOptions& opt,
                    Experiment* ex) {
  if (!node.IsMap()) return w.At(node, "quality: must be a mapping of workload: options");
  KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in quality "); !st) return st;
    const std::string key = kv.first.Scalar();
    if (key == "ppl") {
      auto p = ParsePpl(w, kv.second, opt);
      if (!p) return p.error();
      ex->ppl = *p;
    } else if (key == "divergence") {
      if (!kv.second.IsMap() || !kv.second["reference"] || !kv.second["reference"].IsScalar() ||
          kv.second.size() != 1) {
        return w.At(kv.second, "divergence: takes exactly 'reference:' (a model of this file)");
      }
      ex->divergence_reference = kv.second["reference"].Scalar();
    } else if (key == "kld") {
      auto k = ParseKld(w, kv.second, opt);
      if (!k) return k.error();
      ex->kld = *k;
    } else if (key == "gen") {
      auto g = ParseGen(w, kv.second, opt);
      if (!g) return g.error();
      ex->gen = *g;
    } else if (key == "mc") {
      auto m = ParseMc(w, kv.second, opt);
      if (!m) return m.error();
      ex->mc = *m;
    } else {
      return w.At(
          kv.first,
          fmt::format("unknown quality workload '{}'{} (workloads: ppl, kld, mc, gen, divergence)",
                      key, DidYouMean(key, {"ppl", "kld", "mc", "gen", "divergence"})));
    }
  }
  return {};
}

std::string VariantsDir(const LoadOptions& opt) {
  if (!opt.variants_dir.empty()) return opt.variants_dir;
  return (fs::path(opt.models_dir) / "variants").lexically_normal().string();
}

Result<std::vector<std::string>> FileTypes(const Where& w, const YAML::Node& node,
                                           const std::string& what) {
  std::vector<std::string> types;
  if (node.IsSequence() && node.size() == 0) return w.At(node, what + ": empty list");
  for (const YAML::Node& n : AsList(node)) {
    auto s = Scalar(w, n, what);
    if (!s) return s.error();
    if (!quant::IsFileType(*s)) {
      std::string known;
      for (const auto& t : quant::FileTypeNames()) known += " " + t;
      return w.At(n, fmt::format("unknown quantization type '{}'{} (known:{})", *s,
                                 DidYouMean(*s, quant::FileTypeNames()), known));
    }
    if (std::find(types.begin(), types.end(), *s) != types.end()) {
      return w.At(n, fmt::format("type {} is listed twice", *s));
    }
    types.push_back(*s);
  }
  return types;
}

// One `quantize:` entry: variants of a base model, appended to the experiment's models.
Status ParseQuantizeEntry(const Where& w, const YAML::Node& node, const LoadOptions& opt,
                          Experiment* ex) {
  if (!node.IsMap()) {
    return w.At(node,
                "a quantize entry is a mapping: base:, types:, and optionally imatrix:, "
                "overrides:, label:");
  }
  static const std::vector<std::string> kKeys = {"base", "types", "imatrix", "overrides", "label"};
  KeySet keys;
  YAML::Node base_node, types_node, imatrix_node, overrides_node, label_node;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in quantize "); !st) return st;
    const std::string key = kv.first.Scalar();
    if (key == "base") {
      base_node.reset(kv.second);
    } else if (key == "types") {
      types_node.reset(kv.second);
    } else if (key == "imatrix") {
      imatrix_node.reset(kv.second);
    } else if (key == "overrides") {
      overrides_node.reset(kv.second);
    } else if (key == "label") {
      label_node.reset(kv.second);
    } else {
      return w.At(kv.first,
                  fmt::format("unknown key '{}' in quantize{}", key, DidYouMean(key, kKeys)));
    }
  }
  if (base_node.IsNull())
    return w.At(node,
                "quantize: needs 'base:' (a model of this file, a bundled "
                "name or a .gguf path)");
  // The base: a model of this file by name, else a bundled name or a path.
  ModelSpec base;
  auto s = Scalar(w, base_node, "quantize.base");
  if (!s) return s.error();
  auto same = std::find_if(ex->models.begin(), ex->models.end(),
                           [&](const ModelSpec& m) { return m.name == *s && !m.variant; });
  if (same != ex->models.end()) {
    base = *same;
  } else {
    auto m = ParseModel(w, base_node, opt);
    if (!m) return m.error();
    base = *m;
  }
  std::string base_sha;
  const model::BundledModel* bundled =
      base.source.starts_with("bundled:") ? model::FindBundled(base.source.substr(8)) : nullptr;
  if (bundled) {
    base_sha = bundled->sha256;  // verified when it was fetched
  } else {
    auto sha = Sha256File(base.path);
    if (!sha) return w.At(base_node, sha.error().message);
    base_sha = *sha;
  }

  std::vector<std::string> types;
  if (!types_node.IsNull()) {
    auto t = FileTypes(w, types_node, "quantize.types");
    if (!t) return t.error();
    types = *t;
  }
  std::vector<std::string> imatrix_types;
  std::optional<quant::ImatrixSpec> imatrix;
  if (!imatrix_node.IsNull()) {
    if (!imatrix_node.IsMap()) {
      return w.At(imatrix_node,
                  "imatrix: is a mapping: types:, and optionally corpus:, n_ctx:, "
                  "chunks:");
    }
    static const std::vector<std::string> kImKeys = {"types", "corpus", "n_ctx", "chunks"};
    quant::ImatrixSpec spec;
    std::string corpus;
    YAML::Node corpus_node = imatrix_node;
    KeySet im_keys;
    for (const auto& kv : imatrix_node) {
      if (auto st = im_keys.Add(w, kv.first, "in imatrix "); !st) return st;
      const std::string key = kv.first.Scalar();
      if (key == "types") {
        auto t = FileTypes(w, kv.second, "imatrix.types");
        if (!t) return t.error();
        imatrix_types = *t;
        for (const auto& type : imatrix_types) {
          if (quant::IsFullPrecision(type) || type == "Q8_0") {
            return w.At(kv.second, fmt::format("an importance matrix changes nothing for {}: "
                                               "list lower-bit types (Q4_0, Q4_K_M, ...)",
                                               type));
          }
        }
      } else if (key == "corpus") {
        auto c = Scalar(w, kv.second, "imatrix.corpus");
        if (!c) return c.error();
        corpus = *c;
        corpus_node.reset(kv.second);
      } else if (key == "n_ctx" || key == "chunks") {
        auto i = Integer(w, kv.second, "imatrix." + key, key == "n_ctx" ? 32 : 1,
                         key == "n_ctx" ? 1 << 16 : 1 << 20);
        if (!i) return i.error();
        (key == "n_ctx" ? spec.n_ctx : spec.chunks) = static_cast<int>(*i);
      } else {
        return w.At(kv.first,
                    fmt::format("unknown key '{}' in imatrix{}", key, DidYouMean(key, kImKeys)));
      }
    }
    if (imatrix_types.empty()) {
      return w.At(imatrix_node, "imatrix: needs 'types:' (the types to make with it)");
    }
    auto file = CorpusFile(w, corpus_node, corpus, opt, "imatrix corpus");
    if (!file) return file.error();
    spec.corpus = *file;
    if (auto st = CheckCorpusFitsAChunk(w, corpus_node, spec.corpus, spec.n_ctx, "imatrix corpus");
        !st) {
      return st;
    }
    auto sha = Sha256File(spec.corpus);
    if (!sha) return w.At(corpus_node, sha.error().message);
    spec.corpus_sha256 = *sha;
    imatrix = spec;
  }
  if (types.empty() && imatrix_types.empty()) {
    return w.At(node, "quantize: needs 'types:' (e.g. [Q8_0, Q4_K_M, Q4_0]) or 'imatrix:'");
  }

  std::vector<quant::TensorOverride> overrides;
  if (!overrides_node.IsNull()) {
    if (!overrides_node.IsMap() || overrides_node.size() == 0) {
      return w.At(overrides_node,
                  "overrides: is a mapping of tensor-name pattern: type, e.g. "
                  "{'blk\\.0\\..*': q8_0}");
    }
    KeySet ov_keys;
    for (const auto& kv : overrides_node) {
      if (auto st = ov_keys.Add(w, kv.first, "in overrides "); !st) return st;
      auto t = Scalar(w, kv.second, "an override type");
      if (!t) return t.error();
      auto canonical = quant::CanonicalTensorType(*t);
      if (!canonical) {
        return w.At(kv.second, fmt::format("unknown tensor type '{}'{}", *t,
                                           DidYouMean(*t, quant::TensorTypeNames())));
      }
      try {
        std::regex re(kv.first.Scalar());
      } catch (const std::regex_error& e) {
        return w.At(kv.first, fmt::format("'{}' is not a valid regular expression: {}",
                                          kv.first.Scalar(), e.what()));
      }
      overrides.push_back({kv.first.Scalar(), *canonical});
    }
  }
  std::string label;
  if (!label_node.IsNull()) {
    auto l = Scalar(w, label_node, "quantize.label");
    if (!l) return l.error();
    label = *l;
    if (types.size() + imatrix_types.size() != 1) {
      return w.At(label_node, "label: names one variant: give exactly one type with it");
    }
  } else if (!overrides.empty()) {
    return w.At(overrides_node, "a variant with overrides needs 'label:' (its name in reports)");
  }
  if (!overrides.empty()) {
    for (const auto& t : types) {
      if (quant::IsFullPrecision(t)) {
        return w.At(overrides_node,
                    fmt::format("llama.cpp ignores overrides when the type is {}: use a "
                                "quantized type (e.g. Q8_0) for the tensors not overridden",
                                t));
      }
    }
  }

  auto add = [&](const std::string& type, bool with_imatrix) -> Status {
    quant::VariantSpec v;
    v.label = !label.empty() ? label : with_imatrix ? type + "+imatrix" : type;
    v.name = base.name + ":" + v.label;
    v.base_name = base.name;
    v.base_path = base.path;
    v.base_sha256 = base_sha;
    v.base_quant = base.quant;
    if (base.provenance.is_object() && base.provenance.value("requantized", false)) {
      const auto& b = base.provenance.value("base", nlohmann::json::object());
      v.base_origin = b.value("weights_from", b.value("quant", ""));
    }
    v.base_source = base.source;
    v.type = type;
    v.overrides = overrides;
    if (with_imatrix) v.imatrix = imatrix;
    ModelSpec m;
    m.name = v.name;
    m.path = (fs::path(VariantsDir(opt)) / v.FileName()).string();
    m.source = "variant:" + base.source;
    m.line = Line(node);
    m.n_ctx_train = base.n_ctx_train;
    m.quant = v.label;
    m.provenance = v.Provenance();
    m.variant = std::move(v);
    for (const auto& other : ex->models) {
      if (other.name == m.name) {
        return w.At(
            node, fmt::format("model '{}' is listed twice (first at line {})", m.name, other.line));
      }
    }
    ex->models.push_back(std::move(m));
    return {};
  };
  for (const auto& t : types) {
    if (auto st = add(t, false); !st) return st;
  }
  for (const auto& t : imatrix_types) {
    if (auto st = add(t, true); !st) return st;
  }
  return {};
}

Status ParseQuantize(const Where& w, const YAML::Node& node, const LoadOptions& opt,
                     Experiment* ex) {
  if (node.IsSequence()) {
    for (const YAML::Node& n : node) {
      if (auto st = ParseQuantizeEntry(w, n, opt, ex); !st) return st;
    }
    return {};
  }
  return ParseQuantizeEntry(w, node, opt, ex);
}

// The tab nearest before or on line `last` (0-based) that sits in a line's indentation, as
// 0-based (line, column); nullopt if there is none. Only lines with something after their
// indentation count.
std::optional<std::pair<int, int>> TabInIndentation(std::string_view text, int last) {
  std::optional<std::pair<int, int>> found;
  int line = 0;
  for (size_t begin = 0; begin <= text.size() && line <= last; ++line) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(begin, end - begin);
    const size_t content = l.find_first_not_of(" \t\r");
    const size_t tab = l.find('\t');
    if (content != std::string_view::npos && tab < content) {
      found = std::make_pair(line, static_cast<int>(tab));
    }
    begin = end + 1;
  }
  return found;
}

}  // namespace

std::string McPrompt(const std::string& question) { return "Question: " + question + "\nAnswer:"; }
std::string McContinuation(const std::string& choice) { return " " + choice; }

Result<TestSpec> ParseTestName(std::string_view text) {
  TestSpec t;
  std::string_view num;
  if (text.starts_with("ttft@")) {
    t.kind = TestKind::kTTFT;
    num = text.substr(5);
  } else if (text.starts_with("pp")) {
    t.kind = TestKind::kPP;
    num = text.substr(2);
  } else if (text.starts_with("tg")) {
    t.kind = TestKind::kTG;
    num = text.substr(2);
  } else {
    return InputError(
        fmt::format("unknown test '{}' (tests: pp<N>, tg<N>, ttft@<P>, e.g. "
                    "pp512, tg128, ttft@256)",
                    text));
  }
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  const bool digits = !num.empty() && ptr == num.data() + num.size();
  if (digits &&
      (ec == std::errc::result_out_of_range || (ec == std::errc() && v > kMaxTestTokens))) {
    return InputError(fmt::format("test '{}' asks for {} tokens: a test takes at most {} (2^24)",
                                  text, num, kMaxTestTokens));
  }
  if (!digits || ec != std::errc()) {
    return InputError(
        fmt::format("test '{}' needs a whole number of tokens after '{}', e.g. pp512, tg128, "
                    "ttft@256",
                    text, text.substr(0, text.size() - num.size())));
  }
  if (v < 1) {
    return InputError(
        fmt::format("test '{}' needs a positive token count, e.g. pp512, tg128, ttft@256", text));
  }
  t.n = static_cast<int>(v);
  switch (t.kind) {
    case TestKind::kPP:
      t.name = fmt::format("pp{}", v);
      break;
    case TestKind::kTG:
      t.name = fmt::format("tg{}", v);
      break;
    case TestKind::kTTFT:
      t.name = fmt::format("ttft@{}", v);
      break;
  }
  return t;
}

nlohmann::json Experiment::Canonical() const {
  nlohmann::json j;
  j["name"] = name;
  j["device"] = device;
  for (const auto& m : models) {
    nlohmann::json mj = {{"name", m.name}, {"path", m.path}};
    if (m.variant) mj["variant"] = m.variant->Definition();
    j["models"].push_back(mj);
  }
  for (const auto& r : runtimes) j["runtimes"].push_back(r.name);
  for (const auto& [k, vs] : params) j["params"][k] = vs;
  for (const auto& t : tests) j["tests"].push_back(t.name);
  if (mc) j["quality"]["mc"] = {{"dataset", mc->dataset}, {"limit", mc->limit}};
  if (gen) {
    j["quality"]["gen"] = {{"dataset", gen->dataset}, {"limit", gen->limit}};
    // Only when set, so that the hash of a file without options stays what it was.
    if (!gen->template_options.empty()) {
      j["quality"]["gen"]["template_options"] = gen->template_options;
    }
  }
  if (divergence_reference) j["quality"]["divergence"] = *divergence_reference;
  if (kld) {
    j["quality"]["kld"] = {{"reference", kld->reference},
                           {"corpus", kld->corpus},
                           {"n_ctx", kld->n_ctx},
                           {"chunks", kld->chunks},
                           {"mode", kld->mode == KldMode::kTopK ? "topk" : "full"}};
    if (kld->mode == KldMode::kTopK) j["quality"]["kld"]["top_k"] = kld->top_k;
  }
  if (ppl) {
    j["quality"]["ppl"] = {{"corpus", ppl->corpus}, {"n_ctx", ppl->n_ctx}, {"chunks", ppl->chunks}};
  }
  j["repetitions"] = repetitions;
  j["warmup"] = warmup;
  j["timeout"] = timeout_s;
  j["seed"] = seed;
  return j;
}

std::string Experiment::Hash() const { return Sha256Hex(Canonical().dump()); }

Result<Experiment> ParseExperiment(const std::string& text, const std::string& path,
                                   const ParamRegistry& registry, const LoadOptions& options) {
  Where w(path);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return w.File("the experiment file is empty (it needs at least models: and tests:)");
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp's words for a tab in the indentation ("illegal map value", ...) do not say so.
    if (auto tab = TabInIndentation(text, e.mark.line)) {
      return InputError(fmt::format("{}:{}:{}: a tab in the indentation: YAML indents with spaces",
                                    path, tab->first + 1, tab->second + 1));
    }
    return InputError(fmt::format("{}:{}:{}: malformed YAML: {}", path, e.mark.line + 1,
                                  e.mark.column + 1, e.msg));
  }
  if (!root.IsMap()) return w.File("an experiment file must be a YAML mapping (key: value)");

  Experiment ex;
  ex.path = path;
  ex.source_text = text;
  ex.name = fs::path(path).stem().string();
  std::map<std::string, std::vector<std::string>> swept;
  bool have_models = false, have_tests = false;
  YAML::Node quantize_node;

  KeySet top_keys;
  for (const auto& kv : root) {
    if (auto st = top_keys.Add(w, kv.first, ""); !st) return st.error();
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (key == "name") {
      auto s = Scalar(w, v, "name");
      if (!s) return s.error();
      ex.name = *s;
    } else if (key == "description") {
      auto s = Scalar(w, v, "description");
      if (!s) return s.error();
      ex.description = *s;
    } else if (key == "models") {
      have_models = true;
      if (v.IsNull() || (v.IsSequence() && v.size() == 0)) {
        return w.At(v.IsNull() ? kv.first : v, "models: needs at least one model");
      }
      for (const YAML::Node& n : AsList(v)) {
        auto m = ParseModel(w, n, options);
        if (!m) return m.error();
        for (const auto& other : ex.models) {
          if (other.path == m->path && other.name == m->name) {
            return w.At(n, fmt::format("model '{}' is listed twice (first at line {})", m->name,
                                       other.line));
          }
        }
        ex.models.push_back(*m);
      }
    } else if (key == "runtime" || key == "runtimes") {
      if (!ex.runtimes.empty()) {
        return w.At(kv.first, "give either 'runtime:' or 'runtimes:', not both");
      }
      for (const YAML::Node& n : AsList(v)) {
        auto r = ParseRuntime(w, n, options);
        if (!r) return r.error();
        for (const auto& other : ex.runtimes) {
          if (other.name == r->name && other.worker == r->worker) {
            return w.At(n, fmt::format("runtime '{}' is listed twice (first at line {})", r->name,
                                       other.line));
          }
        }
        ex.runtimes.push_back(*r);
      }
    } else if (key == "device") {
      auto s = Scalar(w, v, "device");
      if (!s) return s.error();
      if (*s != "local") {
        return w.At(v, fmt::format("device '{}' is not supported yet: only 'local'", *s));
      }
      ex.device = *s;
    } else if (key == "params") {
      if (!v.IsMap()) return w.At(v, "params: must be a mapping of parameter: value or [values]");
      KeySet param_keys;
      for (const auto& p : v) {
        if (auto st = param_keys.Add(w, p.first, "in params "); !st) return st.error();
        const std::string pname = p.first.Scalar();
        const ParamDef* def = registry.Find(pname);
        if (!def) {
          return w.At(p.first,
                      fmt::format("unknown parameter '{}'{}", pname, registry.DidYouMean(pname)));
        }
        std::vector<std::string> values;
        if (p.second.IsSequence() && p.second.size() == 0) {
          return w.At(p.second, fmt::format("{}: empty list", pname));
        }
        for (const YAML::Node& n : AsList(p.second)) {
          auto s = Scalar(w, n, pname);
          if (!s) return s.error();
          auto parsed = registry.Parse(*def, *s);
          if (!parsed) return w.At(n, parsed.error().message);
          if (std::find(values.begin(), values.end(), *parsed) == values.end()) {
            values.push_back(*parsed);
          }
        }
        swept[pname] = values;
        ex.param_lines[pname] = Line(p.first);
      }
    } else if (key == "quality") {
      if (auto q = ParseQuality(w, v, options, &ex); !q) return q.error();
    } else if (key == "quantize") {
      quantize_node.reset(v);  // parsed after models:, whose names a base may use
    } else if (key == "tests") {
      have_tests = true;
      for (const YAML::Node& n : AsList(v)) {
        auto s = Scalar(w, n, "a test");
        if (!s) return s.error();
        auto t = ParseTestName(*s);
        if (!t) return w.At(n, t.error().message);
        t->line = Line(n);
        for (const auto& other : ex.tests) {
          if (other.name == t->name) {
            return w.At(
                n, fmt::format("test {} is listed twice (first at line {})", t->name, other.line));
          }
        }
        ex.tests.push_back(*t);
      }
      if (ex.tests.empty()) return w.At(v, "tests: needs at least one test");
    } else if (key == "repetitions") {
      auto i = Integer(w, v, "repetitions", 1, 100000);
      if (!i) return i.error();
      ex.repetitions = static_cast<int>(*i);
    } else if (key == "warmup") {
      auto i = Integer(w, v, "warmup", 0, 100000);
      if (!i) return i.error();
      ex.warmup = static_cast<int>(*i);
    } else if (key == "timeout") {
      auto i = Integer(w, v, "timeout (seconds)", 1, 7 * 24 * 3600);
      if (!i) return i.error();
      ex.timeout_s = static_cast<double>(*i);
    } else if (key == "seed") {
      auto i = Integer(w, v, "seed", 0, INT64_MAX);
      if (!i) return i.error();
      ex.seed = static_cast<uint64_t>(*i);
    } else if (key == "store") {
      auto s = Scalar(w, v, "store");
      if (!s) return s.error();
      ex.store = *s;
    } else if (registry.Find(key)) {
      return w.At(kv.first,
                  fmt::format("'{}' is a runtime parameter: put it under 'params:'", key));
    } else if (const ParamDef* alias = registry.FindAlias(key)) {
      return w.At(kv.first, fmt::format("unknown key '{}': the runtime parameter is '{}', under "
                                        "'params:'",
                                        key, alias->name));
    } else {
      return w.At(kv.first, fmt::format("unknown key '{}'{}", key, DidYouMean(key, kTopKeys)));
    }
  }
  if (quantize_node.IsDefined() && !quantize_node.IsNull()) {
    if (auto st = ParseQuantize(w, quantize_node, options, &ex); !st) return st.error();
  }
  if (!have_models && ex.models.empty()) {
    return w.File("missing 'models:' (a list of bundled names or .gguf paths) or 'quantize:'");
  }
  if (ex.divergence_reference && ex.kld && ex.kld->reference != *ex.divergence_reference) {
    return InputError(
        fmt::format("{}: kld and divergence name different references ('{}', '{}'): "
                    "the reference runs first, so they must be the same model",
                    path, ex.kld->reference, *ex.divergence_reference));
  }
  if (ex.divergence_reference) {
    if (!ex.gen) {
      return InputError(
          fmt::format("{}: divergence compares the outputs of gen: add 'gen:' to "
                      "quality",
                      path));
    }
    auto it = std::find_if(ex.models.begin(), ex.models.end(),
                           [&](const ModelSpec& m) { return m.name == *ex.divergence_reference; });
    if (it == ex.models.end()) {
      return InputError(fmt::format("{}: divergence reference '{}' is not a model of this file",
                                    path, *ex.divergence_reference));
    }
    std::rotate(ex.models.begin(), it, it + 1);
  }
  if (ex.kld) {
    // The reference must be a model of this file; its cells run first.
    auto it = std::find_if(ex.models.begin(), ex.models.end(),
                           [&](const ModelSpec& m) { return m.name == ex.kld->reference; });
    if (it == ex.models.end()) {
      std::vector<std::string> names;
      for (const auto& m : ex.models) names.push_back(m.name);
      return InputError(fmt::format("{}:{}: kld reference '{}' is not a model of this file{}", path,
                                    ex.kld->line, ex.kld->reference,
                                    DidYouMean(ex.kld->reference, names)));
    }
    std::rotate(ex.models.begin(), it, it + 1);
  }
  if (!have_tests && !ex.ppl && !ex.mc && !ex.gen && !ex.kld) {
    return w.File("missing 'tests:' (for example [pp512, tg128, ttft@256]) or 'quality:'");
  }
  if (ex.runtimes.empty()) {
    YAML::Node n(std::string("llama.cpp"));
    auto r = ParseRuntime(w, n, options);
    if (!r) return r.error();
    ex.runtimes.push_back(*r);
  }
  // A parameter the file does not set is left out (the runtime's default applies), unless it
  // has a default of Pipette's own (n_ctx, depth).
  for (const ParamDef& def : registry.defs()) {
    auto it = swept.find(def.name);
    if (it != swept.end()) {
      ex.params.emplace_back(def.name, it->second);
    } else if (def.HasDefault()) {
      ex.params.emplace_back(def.name, std::vector<std::string>{def.default_value});
    }
  }
  return ex;
}

Result<Experiment> LoadExperiment(const std::string& path, const ParamRegistry& registry,
                                  const LoadOptions& options) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return InputError(fmt::format("{}: is a directory, not an experiment file", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return InputError(fmt::format("{}: cannot read the experiment file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseExperiment(ss.str(), path, registry, options);
}

}  // namespace pipette::config
