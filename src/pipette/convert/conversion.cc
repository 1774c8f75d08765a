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

const std::vector<std::string>& ConversionVariants() {
  static const std::vector<std::string> kVariants = {"fp32", "fp16", "int8-dynamic", "int4-rtn",
                                                     "int4-gptq"};
  return kVariants;
}

bool ConversionVariantSupported(const std::string& variant) {
  return variant != "int4-gptq" &&
         std::find(ConversionVariants().begin(), ConversionVariants().end(), variant) !=
             ConversionVariants().end();
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
          {"to", "onnx"},
          {"variant", Variant()},
          {"calibration", nullptr},
          {"converter", "pipette-convert"}};
}

std::string ConversionSpec::CacheKey() const { return Sha256Hex(Definition().dump()); }

std::string ConversionSpec::FolderName() const {
  std::string stem = std::filesystem::path(base_path).stem().string();
  for (char& c : stem) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    if (!ok) c = '-';
  }
  return fmt::format("{}.onnx-{}.{}", stem, variant, CacheKey().substr(0, 12));
}

std::string ConversionSpec::MadeFrom() const {
  return variant == "fp32" || variant == "fp16" ? "" : "fp32";
}

json ConversionSpec::Provenance() const {
  json p = Definition();
  const bool requantized = !MadeFrom().empty() && !quant::IsFullPrecision(base_quant);
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
  const std::string from = base_quant.empty() ? "an unknown type" : base_quant;
  p["note"] = requantized ? fmt::format(
                                "re-quantized from {}: the GGUF is itself quantized, so "
                                "this is not a quantization of the full-precision weights",
                                from)
                          : fmt::format("converted from {}", from);
  return p;
}

}  // namespace pipette::convert
