#include "pipette/config/parse_convert.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "pipette/convert/conversion.h"
#include "pipette/util/strings.h"

namespace pipette::config {
namespace {

// int4: {block_size, symmetric}.
Status ParseInt4(const Where& w, const YAML::Node& node, const std::string& path,
                 WrittenConvert* c) {
  auto m = YamlMapping::Read(w, node, path, "int4: is a mapping: block_size:, symmetric:");
  if (!m) return m.error();
  if (auto st = m->OnlyKeys({"block_size", "symmetric"}, " in int4"); !st) return st;
  FieldReader& f = m->fields();
  if (f.Has("block_size")) {
    const int64_t b = f.Int("block_size", 16, 256);
    if (f.ok() && (b & (b - 1)) != 0) {
      f.FailAt("block_size",
               fmt::format("int4.block_size {} is not a power of 2 (16, 32, 64, 128 or 256)", b));
    }
    c->block_size = static_cast<int>(b);
  }
  if (f.Has("symmetric")) c->symmetric = f.Bool("symmetric");
  return m->status();
}

// gptq: {calibration, tokens, samples, damp}.
Status ParseGptq(const Where& w, const YAML::Node& node, const std::string& path,
                 WrittenConvert* c) {
  auto m = YamlMapping::Read(w, node, path,
                             "gptq: is a mapping: calibration:, tokens:, samples:, damp:");
  if (!m) return m.error();
  if (auto st = m->OnlyKeys({"calibration", "tokens", "samples", "damp"}, " in gptq"); !st) {
    return st;
  }
  FieldReader& f = m->fields();
  c->calibration = WrittenFile{std::nullopt, PosOf(node)};
  if (f.Has("calibration")) {
    c->calibration = WrittenFile{f.String("calibration"), m->PlaceOf("calibration")};
  }
  c->calibration_tokens = f.OptionalInt("tokens", 1, 8192);
  c->calibration_samples = f.OptionalInt("samples", 1, 4096);
  if (f.Has("damp")) c->damp = f.Number("damp", 0, 1);
  return m->status();
}

// variants: of a convert entry, read from `f` (its entry's fields).
Status ParseVariants(FieldReader& f, WrittenConvert* c) {
  const std::vector<std::string>& known = convert::ConversionVariants(c->to.value_or("onnx"));
  const std::vector<std::string> variants = f.Strings("variants");
  for (size_t i = 0; i < variants.size(); ++i) {
    const std::string& v = variants[i];
    if (std::find(known.begin(), known.end(), v) == known.end()) {
      const std::string to = c->to.value_or("onnx");
      f.FailAt("variants", i,
               fmt::format("unknown variant '{}'{} (variants{}: {})", v, DidYouMean(v, known),
                           to == "onnx" ? "" : " for " + to, fmt::join(known, ", ")));
      return f.status();
    }
    if (std::find(c->variants.begin(), c->variants.end(), v) != c->variants.end()) {
      f.FailAt("variants", i, fmt::format("variant '{}' is listed twice", v));
      return f.status();
    }
    c->variants.push_back(v);
  }
  if (f.ok() && c->variants.empty()) {
    f.FailAt("variants",
             fmt::format("convert.variants: name at least one ({})", fmt::join(known, ", ")));
  }
  return f.status();
}

// One convert: entry: ONNX variants of a GGUF.
Result<WrittenConvert> ParseConvertEntry(const Where& w, const YAML::Node& node,
                                         const std::string& path) {
  auto m = YamlMapping::Read(
      w, node, path,
      "a convert entry is a mapping: base:, to:, variants:, and optionally int4:, gptq:");
  if (!m) return m.error();
  if (auto st = m->OnlyKeys({"base", "to", "variants", "int4", "gptq"}, " in convert"); !st) {
    return st.error();
  }
  FieldReader& f = m->fields();
  WrittenConvert c;
  c.pos = PosOf(node);
  if (f.Has("to")) {
    const std::string to = f.String("to");
    const std::vector<std::string>& targets = convert::ConversionTargets();
    if (f.ok() && std::find(targets.begin(), targets.end(), to) == targets.end()) {
      return m->At("to", fmt::format("convert.to '{}'{}: the targets are {}", to,
                                     DidYouMean(to, targets), fmt::join(targets, ", ")));
    }
    c.to = to;
  }
  if (auto st = m->status(); !st) return st.error();
  if (!m->Has("base") || m->Node("base").IsNull()) {
    return m->Here("convert: needs 'base:' (a model of this file, a bundled name or a .gguf path)");
  }
  c.base = {f.String("base"), std::nullopt, m->PlaceOf("base")};
  if (auto st = m->status(); !st) return st.error();
  if (!m->Has("variants") || m->Node("variants").IsNull()) {
    return m->Here("convert: needs 'variants:' (e.g. [fp32, int8-dynamic, int4-rtn])");
  }
  if (auto st = ParseVariants(f, &c); !st) return st.error();
  const YAML::Node int4 = m->Node("int4");
  if (int4 && !int4.IsNull()) {
    if (std::none_of(c.variants.begin(), c.variants.end(), convert::IsInt4)) {
      return m->At("int4", "int4: options go with an int4 variant (int4-rtn), and none is listed");
    }
    if (auto st = ParseInt4(w, int4, path + ".int4", &c); !st) return st.error();
  }
  const bool gptq =
      std::find(c.variants.begin(), c.variants.end(), "int4-gptq") != c.variants.end();
  const YAML::Node gptq_node = m->Node("gptq");
  if (gptq_node && !gptq_node.IsNull()) {
    if (!gptq) {
      return m->At("gptq", "gptq: options go with the int4-gptq variant, which is not listed");
    }
    if (auto st = ParseGptq(w, gptq_node, path + ".gptq", &c); !st) return st.error();
  }
  return c;
}

}  // namespace

Result<std::vector<WrittenConvert>> ParseConvert(const Where& w, const YAML::Node& node) {
  std::vector<WrittenConvert> out;
  const std::vector<YAML::Node> entries = AsList(node);
  for (size_t i = 0; i < entries.size(); ++i) {
    auto c = ParseConvertEntry(
        w, entries[i], node.IsSequence() ? "convert[" + std::to_string(i) + "]" : "convert");
    if (!c) return c.error();
    out.push_back(std::move(*c));
  }
  return out;
}

}  // namespace pipette::config
