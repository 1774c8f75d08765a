#include "pipette/convert/provenance.h"

#include <fmt/format.h>

#include <filesystem>

#include "pipette/quant/types.h"

namespace pipette::convert {

using nlohmann::json;

json ConversionProvenance(const model::OnnxModel& m, const std::string& base_name) {
  const json source = m.meta.value("source", json::object());
  const json variant = m.meta.value("variant", json::object());
  const std::string path = source.is_object() ? source.value("path", "") : "";
  const std::string from = source.is_object() ? source.value("file_type", "") : "";
  const bool quantizes = m.variant != "fp32" && m.variant != "fp16";
  const bool requantized = quantizes && !quant::IsFullPrecision(from);
  json p = {{"format", kConversionFormat},
            {"label", model::OnnxQuantLabel(variant)},
            {"variant", variant},
            {"base",
             {{"name", base_name.empty() ? std::filesystem::path(path).stem().string() : base_name},
              {"path", path},
              {"sha256", source.is_object() ? source.value("sha256", "") : ""},
              {"quant", from}}},
            {"requantized", requantized},
            {"model", m.meta}};
  const std::string what = from.empty() ? "an unknown type" : from;
  p["note"] = requantized
                  ? fmt::format(
                        "re-quantized from {}: the GGUF is itself quantized, so this is not a "
                        "quantization of the full-precision weights",
                        what)
                  : fmt::format("converted from {}{}", what,
                                quantizes || quant::IsFullPrecision(from)
                                    ? ""
                                    : ": its weights are that file's, dequantized");
  return p;
}

}  // namespace pipette::convert
