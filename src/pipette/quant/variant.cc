#include "pipette/quant/variant.h"

#include <fmt/format.h>

#include <filesystem>

#include "pipette/quant/types.h"
#include "pipette/util/json_read.h"
#include "pipette/util/sha256.h"

namespace pipette::quant {
namespace {

using nlohmann::json;

std::string SafeForFileName(std::string s) {
  for (char& c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) c = '-';
  }
  return s;
}

json ImatrixDefinition(const ImatrixSpec& m) {
  return {{"corpus_sha256", m.corpus_sha256}, {"n_ctx", m.n_ctx}, {"chunks", m.chunks}};
}

}  // namespace

bool VariantSpec::Requantized() const {
  return !IsFullPrecision(base_quant) || (!base_origin.empty() && !IsFullPrecision(base_origin));
}

json VariantSpec::Definition() const {
  json overrides_json = json::array();
  for (const auto& o : overrides)
    overrides_json.push_back({{"pattern", o.pattern}, {"type", o.type}});
  return {{"base_sha256", base_sha256},
          {"type", type},
          {"allow_requantize", true},
          {"overrides", overrides_json},
          {"imatrix", imatrix ? ImatrixDefinition(*imatrix) : json(nullptr)},
          {"quantizer", "llama.cpp llama_model_quantize"}};
}

std::string VariantSpec::CacheKey() const { return Sha256Hex(Definition().dump()); }

std::string VariantSpec::FileName() const {
  const std::string stem = std::filesystem::path(base_path).stem().string();
  return SafeForFileName(fmt::format("{}.{}.{}", stem, label, CacheKey().substr(0, 12))) + ".gguf";
}

json VariantSpec::Provenance() const {
  json p = Definition();
  p["format"] = "pipette-variant/1";
  p["key"] = CacheKey();
  p["name"] = name;
  p["label"] = label;
  p["base"] = {{"name", base_name},
               {"path", base_path},
               {"sha256", base_sha256},
               {"quant", base_quant},
               {"source", base_source}};
  if (!base_origin.empty()) p["base"]["weights_from"] = base_origin;
  const std::string from =
      !base_origin.empty() && !IsFullPrecision(base_origin) ? base_origin : base_quant;
  p["requantized"] = Requantized();
  if (imatrix) p["imatrix"]["corpus"] = imatrix->corpus;
  p["note"] = Requantized()
                  ? fmt::format(
                        "re-quantized from {}: the base file is itself quantized, so this "
                        "is not a quantization of the full-precision weights",
                        from.empty() ? "an unknown type" : from)
                  : fmt::format("quantized from {}", base_quant);
  return p;
}

std::string ImatrixFileName(const VariantSpec& v) {
  const std::string stem = std::filesystem::path(v.base_path).stem().string();
  const json key = {{"base_sha256", v.base_sha256},
                    {"imatrix", v.imatrix ? ImatrixDefinition(*v.imatrix) : json(nullptr)}};
  return SafeForFileName(fmt::format("{}.{}", stem, Sha256Hex(key.dump()).substr(0, 12))) +
         ".imatrix.json";
}

std::string OriginNote(const json& provenance) {
  if (!provenance.is_object()) return "";
  // Read back from a store: a field of another type reads as absent.
  using json_read::String;
  const json base_json = json_read::Member(provenance, "base");
  std::string base = String(base_json, "weights_from");
  if (base.empty()) base = String(base_json, "quant");
  const auto requantized = provenance.find("requantized");
  if (requantized != provenance.end() && *requantized == true) {
    return fmt::format("re-quantized from {}", base.empty() ? "a quantized file" : base);
  }
  // A converted model (convert/provenance.h) that keeps its source's weights.
  const bool converted = String(provenance, "format") == "pipette-conversion/1";
  return base.empty() ? "" : fmt::format("{} from {}", converted ? "converted" : "quantized", base);
}

}  // namespace pipette::quant
