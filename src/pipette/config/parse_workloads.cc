#include "pipette/config/parse_workloads.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <string>

#include "pipette/quant/types.h"
#include "pipette/util/strings.h"

namespace pipette::config {
namespace {

// The quantization types listed under `name` (one, or a list), each once.
std::vector<std::string> FileTypes(FieldReader& f, const char* name, const std::string& what) {
  const std::vector<std::string> listed = f.Strings(name);
  if (f.ok() && listed.empty()) f.FailAt(name, what + ": empty list");
  std::vector<std::string> types;
  for (size_t i = 0; f.ok() && i < listed.size(); ++i) {
    const std::string& t = listed[i];
    if (!quant::IsFileType(t)) {
      f.FailAt(name, i,
               fmt::format("unknown quantization type '{}'{} (known: {})", t,
                           DidYouMean(t, quant::FileTypeNames()),
                           fmt::join(quant::FileTypeNames(), " ")));
    } else if (std::find(types.begin(), types.end(), t) != types.end()) {
      f.FailAt(name, i, fmt::format("type {} is listed twice", t));
    }
    types.push_back(t);
  }
  return types;
}

Result<WrittenImatrix> ParseImatrix(const Where& w, const YAML::Node& node,
                                    const std::string& path) {
  auto m = YamlMapping::Read(
      w, node, path, "imatrix: is a mapping: types:, and optionally corpus:, n_ctx:, chunks:");
  if (!m) return m.error();
  if (auto st = m->OnlyKeys({"types", "corpus", "n_ctx", "chunks"}, " in imatrix"); !st) {
    return st.error();
  }
  FieldReader& f = m->fields();
  WrittenImatrix spec;
  spec.corpus.pos = PosOf(node);
  if (f.Has("types")) {
    spec.types = FileTypes(f, "types", "imatrix.types");
    for (const auto& type : spec.types) {
      if (f.ok() && (quant::IsFullPrecision(type) || type == "Q8_0")) {
        f.FailAt("types", fmt::format("an importance matrix changes nothing for {}: "
                                      "list lower-bit types (Q4_0, Q4_K_M, ...)",
                                      type));
      }
    }
  }
  if (f.Has("corpus")) spec.corpus = {f.String("corpus"), m->PlaceOf("corpus")};
  if (f.Has("n_ctx")) spec.n_ctx = static_cast<int>(f.Int("n_ctx", 32, 1 << 16));
  if (f.Has("chunks")) spec.chunks = static_cast<int>(f.Int("chunks", 1, 1 << 20));
  if (auto st = m->status(); !st) return st.error();
  if (spec.types.empty()) return m->Here("imatrix: needs 'types:' (the types to make with it)");
  return spec;
}

Result<std::vector<quant::TensorOverride>> ParseOverrides(const Where& w, const YAML::Node& node,
                                                          const std::string& path) {
  static const std::string kShape =
      "overrides: is a mapping of tensor-name pattern: type, e.g. {'blk\\.0\\..*': q8_0}";
  auto m = YamlMapping::Read(w, node, path, kShape);
  if (!m) return m.error();
  if (m->keys().empty()) return m->Here(kShape);
  FieldReader& f = m->fields();
  std::vector<quant::TensorOverride> overrides;
  for (const std::string& pattern : m->keys()) {
    const std::string t = f.String(pattern.c_str());
    if (auto st = f.status(); !st) return st.error();
    auto canonical = quant::CanonicalTensorType(t);
    if (!canonical) {
      return m->At(pattern, fmt::format("unknown tensor type '{}'{}", t,
                                        DidYouMean(t, quant::TensorTypeNames())));
    }
    try {
      std::regex re(pattern);
    } catch (const std::regex_error& e) {
      return m->AtKey(pattern,
                      fmt::format("'{}' is not a valid regular expression: {}", pattern, e.what()));
    }
    overrides.push_back({pattern, *canonical});
  }
  return overrides;
}

// Whether a key is given a value (not left empty).
bool Given(const YamlMapping& m, const std::string& key) {
  return m.Has(key) && !m.Node(key).IsNull();
}

// One quantize: entry: variants of a base model.
Result<WrittenQuantize> ParseQuantizeEntry(const Where& w, const YAML::Node& node,
                                           const std::string& path) {
  auto m = YamlMapping::Read(w, node, path,
                             "a quantize entry is a mapping: base:, types:, and optionally "
                             "imatrix:, overrides:, label:");
  if (!m) return m.error();
  if (auto st = m->OnlyKeys({"base", "types", "imatrix", "overrides", "label"}, " in quantize");
      !st) {
    return st.error();
  }
  FieldReader& f = m->fields();
  WrittenQuantize q;
  q.pos = PosOf(node);
  if (!Given(*m, "base")) {
    return m->Here(
        "quantize: needs 'base:' (a model of this file, a bundled name or a .gguf path)");
  }
  q.base = {f.String("base"), std::nullopt, m->PlaceOf("base")};
  if (Given(*m, "types")) q.types = FileTypes(f, "types", "quantize.types");
  if (auto st = m->status(); !st) return st.error();
  if (Given(*m, "imatrix")) {
    auto im = ParseImatrix(w, m->Node("imatrix"), path + ".imatrix");
    if (!im) return im.error();
    q.imatrix = std::move(*im);
  }
  if (q.types.empty() && !q.imatrix) {
    return m->Here("quantize: needs 'types:' (e.g. [Q8_0, Q4_K_M, Q4_0]) or 'imatrix:'");
  }
  if (Given(*m, "overrides")) {
    auto o = ParseOverrides(w, m->Node("overrides"), path + ".overrides");
    if (!o) return o.error();
    q.overrides = std::move(*o);
  }
  const size_t n_types = q.types.size() + (q.imatrix ? q.imatrix->types.size() : 0);
  if (Given(*m, "label")) {
    q.label = f.String("label");
    if (auto st = m->status(); !st) return st.error();
    if (n_types != 1) {
      return m->At("label", "label: names one variant: give exactly one type with it");
    }
  } else if (!q.overrides.empty()) {
    return m->At("overrides", "a variant with overrides needs 'label:' (its name in reports)");
  }
  if (!q.overrides.empty()) {
    for (const auto& t : q.types) {
      if (quant::IsFullPrecision(t)) {
        return m->At("overrides",
                     fmt::format("llama.cpp ignores overrides when the type is {}: use a "
                                 "quantized type (e.g. Q8_0) for the tensors not overridden",
                                 t));
      }
    }
  }
  return q;
}

}  // namespace

Status ParseQuality(const Where& w, const YAML::Node& node, const SpecRegistry& qualities,
                    WrittenExperiment* ex) {
  auto m = YamlMapping::Read(w, node, "quality", "quality: must be a mapping of workload: options");
  if (!m) return m.error();
  for (const std::string& key : m->keys()) {
    const SpecDef* def = qualities.Find(key);
    if (!def) {
      const std::vector<std::string> names = qualities.Names();
      return m->AtKey(key, fmt::format("unknown quality workload '{}'{} (workloads: {})", key,
                                       DidYouMean(key, names), fmt::join(names, ", ")));
    }
    auto spec = def->Parse(w, m->Node(key));
    if (!spec) return spec.error();
    ex->quality.Set(*def, std::move(*spec));
  }
  // In the registry's order, whatever the file's.
  QualitySpecs ordered;
  for (const SpecDef* def : qualities.defs()) {
    for (const QualitySpec& q : ex->quality.all()) {
      if (q.def == def) ordered.Set(*def, q.value);
    }
  }
  ex->quality = std::move(ordered);
  return {};
}

Result<std::vector<WrittenQuantize>> ParseQuantize(const Where& w, const YAML::Node& node) {
  std::vector<WrittenQuantize> out;
  const std::vector<YAML::Node> entries = AsList(node);
  for (size_t i = 0; i < entries.size(); ++i) {
    auto q = ParseQuantizeEntry(
        w, entries[i], node.IsSequence() ? "quantize[" + std::to_string(i) + "]" : "quantize");
    if (!q) return q.error();
    out.push_back(std::move(*q));
  }
  return out;
}

}  // namespace pipette::config
