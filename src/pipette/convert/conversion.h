// A converted variant of a GGUF model (`convert:` in the experiment file): what defines it (the
// GGUF's SHA-256, the variant and its options), where it is cached (a folder under
// models/converted) and the provenance every result measured on it carries. The converter
// (converters/onnx, `python -m pipette_convert`) makes it; convert/maker.h runs it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pipette::convert {

// What `convert:` may make (`to:`): onnx (the default), or mnn (from the ONNX fp32 conversion).
const std::vector<std::string>& ConversionTargets();
// The variants `convert:` may name for target `to`, in the order they are made (fp32 first: the
// quantized ones are made from it). MNN's: fp32 and int8 (its weight quantization).
const std::vector<std::string>& ConversionVariants(const std::string& to = "onnx");
// A 4-bit variant: takes the int4: options.
bool IsInt4(const std::string& variant);

struct ConversionSpec {
  std::string name;         // what the experiment calls it: "<base>:<to>-<variant>"
  std::string to = "onnx";  // the target: onnx or mnn
  std::string variant;      // fp32, fp16, int8-dynamic, int4-rtn, int4-gptq; mnn: fp32, int8
  std::string base_name;
  std::string base_path;  // the GGUF
  std::string base_sha256;
  std::string base_quant;  // its file type ("Q4_1")
  std::string base_source;
  int block_size = 32;  // int4 only
  bool symmetric = true;
  // int4-gptq only: the calibration text and how much of it is used, the Hessian's damping.
  std::string calibration{};  // absolute path
  std::string calibration_sha256{};
  int calibration_tokens = 128;
  int calibration_samples = 8;
  double damp = 0.01;

  // {"name": variant, "block_size", "symmetric" (int4 only)}: as pipette-model.json's variant.
  nlohmann::json Variant() const;
  // The quantization label reports show (model::OnnxQuantLabel).
  std::string Label() const;
  // Everything that defines the folder's bytes, canonical: the GGUF's SHA-256, the target, the
  // variant and its options, the calibration data (none yet) and the converter.
  nlohmann::json Definition() const;
  // SHA-256 of Definition(): the cache key.
  std::string CacheKey() const;
  // The cache folder's name: "<base stem>.<to>-<variant>.<first 12 hex of the key>".
  std::string FolderName() const;
  // The graph file in that folder: model.onnx, or model.mnn.
  std::string GraphFile() const;
  // The model format an experiment's cells load it as: "onnx" or "mnn".
  std::string Format() const { return to; }
  // The ONNX variant it is made from: "" (from the GGUF: fp32, fp16) or "fp32" (an ONNX
  // quantization, and every MNN folder).
  std::string MadeFrom() const;
  // It quantizes the weights (not fp32 or fp16).
  bool Quantizes() const;
  // What every result on it carries before it is made (the maker adds the folder's
  // pipette-model.json and how long): Definition() plus names, the label and a note.
  nlohmann::json Provenance() const;
};

}  // namespace pipette::convert
