// A converted variant of a GGUF model (`convert:` in the experiment file): what defines it (the
// GGUF's SHA-256, the variant and its options), where it is cached (a folder under
// models/converted) and the provenance every result measured on it carries. The converter
// (converters/onnx, `python -m pipette_convert`) makes it; convert/maker.h runs it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pipette::convert {

// The variants `convert:` may name, in the order they are made (fp32 first: the quantized
// ones are made from it). int4-gptq is parsed and refused until the converter has it.
const std::vector<std::string>& ConversionVariants();
// The variants the converter makes today.
bool ConversionVariantSupported(const std::string& variant);
// A 4-bit variant: takes the int4: options.
bool IsInt4(const std::string& variant);

struct ConversionSpec {
  std::string name;     // what the experiment calls it: "<base>:onnx-<variant>"
  std::string variant;  // fp32, fp16, int8-dynamic, int4-rtn
  std::string base_name;
  std::string base_path;  // the GGUF
  std::string base_sha256;
  std::string base_quant;  // its file type ("Q4_1")
  std::string base_source;
  int block_size = 32;  // int4 only
  bool symmetric = true;

  // {"name": variant, "block_size", "symmetric" (int4 only)}: as pipette-model.json's variant.
  nlohmann::json Variant() const;
  // The quantization label reports show (model::OnnxQuantLabel).
  std::string Label() const;
  // Everything that defines the folder's bytes, canonical: the GGUF's SHA-256, the target, the
  // variant and its options, the calibration data (none yet) and the converter.
  nlohmann::json Definition() const;
  // SHA-256 of Definition(): the cache key.
  std::string CacheKey() const;
  // The cache folder's name: "<base stem>.onnx-<variant>.<first 12 hex of the key>".
  std::string FolderName() const;
  // The variant it is made from: "" (from the GGUF: fp32, fp16) or "fp32" (a quantization).
  std::string MadeFrom() const;
  // What every result on it carries before it is made (the maker adds the folder's
  // pipette-model.json and how long): Definition() plus names, the label and a note.
  nlohmann::json Provenance() const;
};

}  // namespace pipette::convert
