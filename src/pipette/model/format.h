// A model format (docs/architecture.md "Adding a model format"): how Pipette recognises a model of
// it, what it reads of one before anything is measured, and what it measures of one at the start
// of each cell, its cache key included. GGUF, a converted ONNX folder and a folder converted for
// MNN are each one, defined in model_formats/ and listed in its registry; a runtime names the
// formats it loads (runtime/runtime.h) by their names.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::model {

// What resolving an experiment reads of a model, before anything is measured.
struct ModelFileFacts {
  std::string path{};  // what a runtime loads: the file itself, or a folder's graph file
  std::string name{};  // the name the model gets where the experiment gives none
  int64_t n_ctx_train = 0;
  std::string quant{};             // the quantization reports show ("Q4_1", "fp32")
  nlohmann::json provenance{};     // how Pipette made it, where it did (null otherwise)
  std::string tokenizer_source{};  // a GGUF whose tokenizer it shares, where known ("")
};

// What is measured of a model at the start of each cell (once per file per run), stored on the
// cell.
struct ModelFacts {
  // The model's cache key: the SHA-256 that says two cells loaded the same model (a GGUF's
  // file's; a converted folder's graph file's). `pipette reproduce` and resume compare it.
  std::string sha256;
  int64_t file_size = 0;  // the bytes of its weights
  nlohmann::json info;    // "format", and what the file says: architecture, quantization, ...
};

struct ModelFormat {
  std::string name;   // "gguf": what runtimes list in model_formats and reports show
  std::string about;  // "a .gguf file": how the unknown-model message names a path of it
  // Endings of a path of this format (".gguf"): a reference so written names a path, not a
  // bundled model, even where nothing is there.
  std::vector<std::string> extensions{};
  // Whether `path`, an existing file or folder, is a model of this format. A format claims what
  // its reader should explain: a .gguf file that is no GGUF is GGUF's, to refuse.
  std::function<bool(const std::string& path)> recognises;
  // What resolving reads of it; bad input (exit code 2) naming the file and the problem.
  std::function<Result<ModelFileFacts>(const std::string& path)> read;
  // What a cell measures of it (`path` as read gave it).
  std::function<Result<ModelFacts>(const std::string& path)> measure;
};

// The formats an experiment's models may be in, in the order they are tried.
class ModelFormats {
 public:
  explicit ModelFormats(std::vector<ModelFormat> formats);

  const std::vector<ModelFormat>& formats() const { return formats_; }
  const ModelFormat* Find(std::string_view name) const;
  // The first format that recognises `path` (an existing file or folder); nullptr: none.
  const ModelFormat* Of(const std::string& path) const;
  // Whether a reference names a path: it holds a '/' or ends with a format's extension.
  bool NamesAPath(std::string_view ref) const;
  // "a .gguf file, a converted ONNX folder or ...": every format's about, then `more`, for
  // messages.
  std::string Abouts(const std::vector<std::string>& more = {}) const;
  // What a cell measures of the model at `path` (read by the format that recognises it).
  Result<ModelFacts> Measure(const std::string& path) const;

 private:
  std::vector<ModelFormat> formats_;
};

}  // namespace pipette::model
