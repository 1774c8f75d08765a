// `pipette sensitivity`: which groups of tensors (per layer, per kind) cannot take low-bit
// quantization, and a mixed-precision recipe for a budget, built and measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pipette/app/commands.h"
#include "pipette/device/device.h"

namespace pipette::app {

struct SensitivityArgs {
  std::string model;          // bundled name or .gguf path
  std::string high = "Q8_0";  // file type of everything not under test (a quantized one)
  std::string low = "q4_0";   // tensor type the group under test gets
  std::string groups = "layers,kinds";
  std::string layers;  // only these layers ("0-3,7"); empty = all
  std::string corpus;  // default: the shipped ppl corpus
  int chunks = 4;
  int n_ctx = 512;
  int top_k = 0;         // 0: full-vocabulary KLD; else kld mode topk with this top_k
  int threads = 0;       // 0: not set (llama.cpp's default)
  std::string max_size;  // e.g. "120MiB", "90000000"
  double max_kld = -1;   // < 0: none
  std::string store = "results/pipette.db";
  std::string output;  // also write the Markdown report here
  bool no_bandwidth = false;
  bool no_wait = false;  // refuse at once when another Pipette is measuring
  double lock_timeout_s = 1800;
};

// Every worker (the quantizer and the cells') starts on `device`, which also gives the fingerprint.
int Sensitivity(const SensitivityArgs& args, const Paths& paths, device::Device& device);

// "120MiB", "1.5GB", "90000000" -> bytes; nullopt when it does not parse.
std::optional<int64_t> ParseSize(const std::string& text);

}  // namespace pipette::app
