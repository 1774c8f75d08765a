#include "pipette/convert/conversion.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "pipette/model/onnx_model.h"
#include "pipette/quant/types.h"
#include "pipette/util/sha256.h"

namespace pipette::convert {

using nlohmann::json;

const std::vector<std::string>& ConversionTargets() {
  static const std::vector<std::string> kTargets = {"onnx", "mnn"};
  return kTargets;
}

const std::vector<std::string>& ConversionVariants(const std::string& to) {
  static const std::vector<std::string> kOnnx = {"fp32", "fp16", "int8-dynamic", "int4-rtn",
                                                 "int4-gptq"};
  static const std::vector<std::string> kMnn = {"fp32", "int8"};
  return to == "mnn" ? kMnn : kOnnx;
}

bool IsInt4(const std::string& variant) { return variant.starts_with("int4-"); }

json ConversionSpec::Variant() const {
  json v = {{"name", variant}};
  if (IsInt4(variant)) {
    v["block_size"] = block_size;
    v["symmetric"] = symmetric;
  }
  return v;
}

std::string ConversionSpec::Label() const { return model::OnnxQuantLabel(Variant()); }

json ConversionSpec::Definition() const {
  return {{"base_sha256", base_sha256},
          {"to", to},
          {"variant", Variant()},
          {"calibration", variant == "int4-gptq" ? json{{"sha256", calibration_sha256},
                                                        {"tokens", calibration_tokens},
                                                        {"samples", calibration_samples},
                                                        {"damp", damp}}
                                                 : json(nullptr)},
          {"converter", "pipette-convert"}};
}

std::string ConversionSpec::CacheKey() const { return Sha256Hex(Definition().dump()); }

std::string ConversionSpec::FolderName() const {
  std::string stem = std::filesystem::path(base_path).stem().string();
  for (char& c : stem) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    if (!ok) c = '-';
  }
  return fmt::format("{}.{}-{}.{}", stem, to, variant, CacheKey().substr(0, 12));
}

std::string ConversionSpec::GraphFile() const {
  return to == "mnn" ? model::kMnnGraphFile : model::kOnnxGraphFile;
}

std::string ConversionSpec::MadeFrom() const { return to == "onnx" && !Quantizes() ? "" : "fp32"; }

bool ConversionSpec::Quantizes() const { return variant != "fp32" && variant != "fp16"; }

json ConversionSpec::Provenance() const {
  json p = Definition();
  const bool requantized = Quantizes() && !quant::IsFullPrecision(base_quant);
  p["format"] = "pipette-conversion/1";
  p["key"] = CacheKey();
  p["name"] = name;
  p["label"] = Label();
  p["base"] = {{"name", base_name},
               {"path", base_path},
               {"sha256", base_sha256},
               {"quant", base_quant},
               {"source", base_source}};
  p["requantized"] = requantized;
  if (variant == "int4-gptq") p["calibration"]["path"] = calibration;
  const std::string from = base_quant.empty() ? "an unknown type" : base_quant;
  p["note"] = requantized ? fmt::format(
                                "re-quantized from {}: the GGUF is itself quantized, so "
                                "this is not a quantization of the full-precision weights",
                                from)
                          : fmt::format("converted from {}{}", from,
                                        to == "mnn" ? " through its ONNX fp32 conversion" : "");
  return p;
}

}  // namespace pipette::convert
