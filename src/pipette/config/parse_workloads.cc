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

Result<WrittenImatrix> ParseImatrix(const Where& w, const YAML::Node& node) {
  if (!node.IsMap()) {
    return w.At(node, "imatrix: is a mapping: types:, and optionally corpus:, n_ctx:, chunks:");
  }
  static const std::vector<std::string> kImKeys = {"types", "corpus", "n_ctx", "chunks"};
  WrittenImatrix spec;
  spec.corpus.pos = PosOf(node);
  KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in imatrix "); !st) return st.error();
    const std::string key = kv.first.Scalar();
    if (key == "types") {
      auto t = FileTypes(w, kv.second, "imatrix.types");
      if (!t) return t.error();
      spec.types = *t;
      for (const auto& type : spec.types) {
        if (quant::IsFullPrecision(type) || type == "Q8_0") {
          return w.At(kv.second, fmt::format("an importance matrix changes nothing for {}: "
                                             "list lower-bit types (Q4_0, Q4_K_M, ...)",
                                             type));
        }
      }
    } else if (key == "corpus") {
      auto c = Scalar(w, kv.second, "imatrix.corpus");
      if (!c) return c.error();
      spec.corpus = {*c, PosOf(kv.second)};
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
  if (spec.types.empty()) return w.At(node, "imatrix: needs 'types:' (the types to make with it)");
  return spec;
}

Result<std::vector<quant::TensorOverride>> ParseOverrides(const Where& w, const YAML::Node& node) {
  if (!node.IsMap() || node.size() == 0) {
    return w.At(node,
                "overrides: is a mapping of tensor-name pattern: type, e.g. "
                "{'blk\\.0\\..*': q8_0}");
  }
  std::vector<quant::TensorOverride> overrides;
  KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in overrides "); !st) return st.error();
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
  return overrides;
}

// One quantize: entry: variants of a base model.
Result<WrittenQuantize> ParseQuantizeEntry(const Where& w, const YAML::Node& node) {
  if (!node.IsMap()) {
    return w.At(node,
                "a quantize entry is a mapping: base:, types:, and optionally imatrix:, "
                "overrides:, label:");
  }
  static const std::vector<std::string> kKeys = {"base", "types", "imatrix", "overrides", "label"};
  WrittenQuantize q;
  q.pos = PosOf(node);
  KeySet keys;
  YAML::Node base_node, types_node, imatrix_node, overrides_node, label_node;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in quantize "); !st) return st.error();
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
  if (base_node.IsNull()) {
    return w.At(node,
                "quantize: needs 'base:' (a model of this file, a bundled "
                "name or a .gguf path)");
  }
  auto s = Scalar(w, base_node, "quantize.base");
  if (!s) return s.error();
  q.base = {*s, std::nullopt, PosOf(base_node)};
  if (!types_node.IsNull()) {
    auto t = FileTypes(w, types_node, "quantize.types");
    if (!t) return t.error();
    q.types = *t;
  }
  if (!imatrix_node.IsNull()) {
    auto im = ParseImatrix(w, imatrix_node);
    if (!im) return im.error();
    q.imatrix = std::move(*im);
  }
  if (q.types.empty() && !q.imatrix) {
    return w.At(node, "quantize: needs 'types:' (e.g. [Q8_0, Q4_K_M, Q4_0]) or 'imatrix:'");
  }
  if (!overrides_node.IsNull()) {
    auto o = ParseOverrides(w, overrides_node);
    if (!o) return o.error();
    q.overrides = std::move(*o);
  }
  const size_t n_types = q.types.size() + (q.imatrix ? q.imatrix->types.size() : 0);
  if (!label_node.IsNull()) {
    auto l = Scalar(w, label_node, "quantize.label");
    if (!l) return l.error();
    q.label = *l;
    if (n_types != 1) {
      return w.At(label_node, "label: names one variant: give exactly one type with it");
    }
  } else if (!q.overrides.empty()) {
    return w.At(overrides_node, "a variant with overrides needs 'label:' (its name in reports)");
  }
  if (!q.overrides.empty()) {
    for (const auto& t : q.types) {
      if (quant::IsFullPrecision(t)) {
        return w.At(overrides_node,
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
  if (!node.IsMap()) return w.At(node, "quality: must be a mapping of workload: options");
  KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in quality "); !st) return st;
    const std::string key = kv.first.Scalar();
    const SpecDef* def = qualities.Find(key);
    if (!def) {
      const std::vector<std::string> names = qualities.Names();
      return w.At(kv.first, fmt::format("unknown quality workload '{}'{} (workloads: {})", key,
                                        DidYouMean(key, names), fmt::join(names, ", ")));
    }
    auto spec = def->Parse(w, kv.second);
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
  for (const YAML::Node& n : AsList(node)) {
    auto q = ParseQuantizeEntry(w, n);
    if (!q) return q.error();
    out.push_back(std::move(*q));
  }
  return out;
}

}  // namespace pipette::config
