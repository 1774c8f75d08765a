#include "pipette/config/parse_convert.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "pipette/convert/conversion.h"
#include "pipette/util/strings.h"

namespace pipette::config {
namespace {

// int4: {block_size, symmetric}.
Status ParseInt4(const Where& w, const YAML::Node& node, WrittenConvert* c) {
  if (!node.IsMap()) return w.At(node, "int4: is a mapping: block_size:, symmetric:");
  static const std::vector<std::string> kKeys = {"block_size", "symmetric"};
  KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in int4 "); !st) return st;
    const std::string key = kv.first.Scalar();
    if (key == "block_size") {
      auto b = Integer(w, kv.second, "int4.block_size", 16, 256);
      if (!b) return b.error();
      if ((*b & (*b - 1)) != 0) {
        return w.At(kv.second, fmt::format("int4.block_size {} is not a power of 2 (16, 32, 64, "
                                           "128 or 256)",
                                           *b));
      }
      c->block_size = static_cast<int>(*b);
    } else if (key == "symmetric") {
      auto v = JsonScalar(w, kv.second, "int4.symmetric");
      if (!v) return v.error();
      if (!v->is_boolean()) return w.At(kv.second, "int4.symmetric is true or false");
      c->symmetric = v->get<bool>();
    } else {
      return w.At(kv.first, fmt::format("unknown key '{}' in int4{}", key, DidYouMean(key, kKeys)));
    }
  }
  return {};
}

// gptq: {calibration, tokens, samples, damp}.
Status ParseGptq(const Where& w, const YAML::Node& node, WrittenConvert* c) {
  if (!node.IsMap()) {
    return w.At(node, "gptq: is a mapping: calibration:, tokens:, samples:, damp:");
  }
  static const std::vector<std::string> kKeys = {"calibration", "tokens", "samples", "damp"};
  KeySet keys;
  c->calibration = WrittenFile{std::nullopt, PosOf(node)};
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in gptq "); !st) return st;
    const std::string key = kv.first.Scalar();
    if (key == "calibration") {
      auto f = Scalar(w, kv.second, "gptq.calibration");
      if (!f) return f.error();
      c->calibration = WrittenFile{*f, PosOf(kv.second)};
    } else if (key == "tokens" || key == "samples") {
      auto n = Integer(w, kv.second, "gptq." + key, 1, key == "tokens" ? 8192 : 4096);
      if (!n) return n.error();
      (key == "tokens" ? c->calibration_tokens : c->calibration_samples) = static_cast<int>(*n);
    } else if (key == "damp") {
      auto d = Number(w, kv.second, "gptq.damp", 0, 1);
      if (!d) return d.error();
      c->damp = *d;
    } else {
      return w.At(kv.first, fmt::format("unknown key '{}' in gptq{}", key, DidYouMean(key, kKeys)));
    }
  }
  return {};
}

Status ParseVariants(const Where& w, const YAML::Node& node, WrittenConvert* c) {
  const std::vector<std::string>& known = convert::ConversionVariants(c->to.value_or("onnx"));
  for (const YAML::Node& n : AsList(node)) {
    auto v = Scalar(w, n, "convert.variants");
    if (!v) return v.error();
    if (std::find(known.begin(), known.end(), *v) == known.end()) {
      const std::string to = c->to.value_or("onnx");
      return w.At(n,
                  fmt::format("unknown variant '{}'{} (variants{}: {})", *v, DidYouMean(*v, known),
                              to == "onnx" ? "" : " for " + to, fmt::join(known, ", ")));
    }
    if (std::find(c->variants.begin(), c->variants.end(), *v) != c->variants.end()) {
      return w.At(n, fmt::format("variant '{}' is listed twice", *v));
    }
    c->variants.push_back(*v);
  }
  if (c->variants.empty()) {
    return w.At(node,
                fmt::format("convert.variants: name at least one ({})", fmt::join(known, ", ")));
  }
  return {};
}

// One convert: entry: ONNX variants of a GGUF.
Result<WrittenConvert> ParseConvertEntry(const Where& w, const YAML::Node& node) {
  if (!node.IsMap()) {
    return w.At(node,
                "a convert entry is a mapping: base:, to:, variants:, and optionally int4:, gptq:");
  }
  static const std::vector<std::string> kKeys = {"base", "to", "variants", "int4", "gptq"};
  WrittenConvert c;
  c.pos = PosOf(node);
  KeySet keys;
  YAML::Node base_node, variants_node, int4_node, gptq_node;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in convert "); !st) return st.error();
    const std::string key = kv.first.Scalar();
    if (key == "base") {
      base_node.reset(kv.second);
    } else if (key == "to") {
      auto to = Scalar(w, kv.second, "convert.to");
      if (!to) return to.error();
      const std::vector<std::string>& targets = convert::ConversionTargets();
      if (std::find(targets.begin(), targets.end(), *to) == targets.end()) {
        return w.At(kv.second, fmt::format("convert.to '{}'{}: the targets are {}", *to,
                                           DidYouMean(*to, targets), fmt::join(targets, ", ")));
      }
      c.to = *to;
    } else if (key == "variants") {
      variants_node.reset(kv.second);
    } else if (key == "int4") {
      int4_node.reset(kv.second);
    } else if (key == "gptq") {
      gptq_node.reset(kv.second);
    } else {
      return w.At(kv.first,
                  fmt::format("unknown key '{}' in convert{}", key, DidYouMean(key, kKeys)));
    }
  }
  if (base_node.IsNull()) {
    return w.At(node,
                "convert: needs 'base:' (a model of this file, a bundled name or a .gguf "
                "path)");
  }
  auto base = Scalar(w, base_node, "convert.base");
  if (!base) return base.error();
  c.base = {*base, std::nullopt, PosOf(base_node)};
  if (variants_node.IsNull()) {
    return w.At(node, fmt::format("convert: needs 'variants:' (e.g. [fp32, int8-dynamic, "
                                  "int4-rtn])"));
  }
  if (auto st = ParseVariants(w, variants_node, &c); !st) return st.error();
  if (!int4_node.IsNull()) {
    if (std::none_of(c.variants.begin(), c.variants.end(), convert::IsInt4)) {
      return w.At(int4_node,
                  "int4: options go with an int4 variant (int4-rtn), and none is listed");
    }
    if (auto st = ParseInt4(w, int4_node, &c); !st) return st.error();
  }
  const bool gptq =
      std::find(c.variants.begin(), c.variants.end(), "int4-gptq") != c.variants.end();
  if (!gptq_node.IsNull()) {
    if (!gptq)
      return w.At(gptq_node, "gptq: options go with the int4-gptq variant, which is not listed");
    if (auto st = ParseGptq(w, gptq_node, &c); !st) return st.error();
  }
  return c;
}

}  // namespace

Result<std::vector<WrittenConvert>> ParseConvert(const Where& w, const YAML::Node& node) {
  std::vector<WrittenConvert> out;
  for (const YAML::Node& n : AsList(node)) {
    auto c = ParseConvertEntry(w, n);
    if (!c) return c.error();
    out.push_back(std::move(*c));
  }
  return out;
}

}  // namespace pipette::config
