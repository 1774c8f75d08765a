// An experiment as its file writes it: what parsing (config/parse.h) makes of the text alone,
// before any file is looked at. Every key the file gives is here, and only those: a value the
// file leaves out is empty (std::nullopt), so the canonical form (config/canonical.h) can tell a
// default written out from one left out. Places (util/place.h: line 0, none) are kept for the
// errors resolving names later (config/resolve.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipette/config/device_spec.h"
#include "pipette/config/endpoint_spec.h"
#include "pipette/config/quality_specs.h"
#include "pipette/quant/variant.h"
#include "pipette/util/place.h"

namespace pipette::config {

// One test of `tests:`, as its kind's grammar read it (the speed workload's table of test kinds,
// workload/speed/test_kinds.h, given to the parser with the quality specs).
struct TestSpec {
  std::string kind{};  // the kind's name: pp, tg, ttft, e2e, sustained
  // pp: prompt tokens; tg, e2e: generated tokens; ttft: prompt tokens; sustained: seconds
  int n = 0;
  int prompt = 0;      // e2e: the prompt's tokens (P of e2e@P+N)
  std::string name{};  // canonical: pp512, tg128, ttft@64, e2e@64+32, sustained60
  int line = 0;
};

// A model entry: a bundled name or a path, optionally with a display name ({path:, name:}).
struct WrittenModel {
  std::string ref{};  // as written
  std::optional<std::string> name{};
  Place pos{};  // the entry
};

// A runtime entry: a name, optionally with its own worker program ({name:, worker:}), or an
// endpoint runtime's keys ({name: openai, base_url: ..., server: ...}).
struct WrittenRuntime {
  std::string name{};
  std::optional<std::string> worker{};        // as written (relative to the experiment file)
  std::optional<WrittenEndpoint> endpoint{};  // an endpoint runtime's keys
  Place pos{};                                // the entry
  Place name_pos{};                           // its name
};

// One parameter under params:, its values in canonical text, duplicates dropped.
struct WrittenParam {
  std::string name{};
  std::vector<std::string> values{};
  Place pos{};  // the key
};

// A data file a workload names (a corpus or a dataset), or none: the shipped default.
struct WrittenFile {
  std::optional<std::string> path{};  // as written
  Place pos{};  // the value, or the workload's node when none is written (errors about the default)
};

struct WrittenImatrix {
  std::vector<std::string> types{};
  WrittenFile corpus{};
  std::optional<int> n_ctx{}, chunks{};
};

// One quantize: entry.
struct WrittenQuantize {
  WrittenModel base{};  // a model of this file by name, else a bundled name or a path
  std::vector<std::string> types{};
  std::optional<WrittenImatrix> imatrix{};
  std::vector<quant::TensorOverride> overrides{};  // in the order written
  std::optional<std::string> label{};
  Place pos{};  // the entry
};

// One convert: entry (convert/conversion.h).
struct WrittenConvert {
  WrittenModel base{};  // a model of this file by name, else a bundled name or a .gguf path
  std::optional<std::string> to{};      // "onnx" (the default) or "mnn"
  std::vector<std::string> variants{};  // in the order written
  std::optional<int> block_size{};      // int4: options
  std::optional<bool> symmetric{};
  // gptq: the calibration text (default: the shipped corpus), its tokens per sample, samples
  // and the Hessian's damping.
  std::optional<WrittenFile> calibration{};
  std::optional<int> calibration_tokens{}, calibration_samples{};
  std::optional<double> damp{};
  Place pos{};  // the entry
};

struct WrittenExperiment {
  std::string path{};         // the file's name, for messages and relative paths
  std::string source_text{};  // the file's bytes
  std::optional<std::string> name{}, description{}, device{}, store{};
  // devices: as written, in order (empty: none written, or `device: local`).
  std::vector<WrittenDevice> devices{};
  std::vector<WrittenModel> models{};
  std::vector<WrittenRuntime> runtimes{};  // empty: none written (llama.cpp)
  std::vector<WrittenParam> params{};      // in the order written
  std::vector<TestSpec> tests{};
  // quality: each workload's entry as written, of its own type (workload/<name>/spec.h).
  QualitySpecs quality{};
  // The top-level sections their owners define (SpecRegistry::sections: select:), as written.
  QualitySpecs sections{};
  std::vector<WrittenQuantize> quantize{};
  std::vector<WrittenConvert> convert{};
  std::optional<int> repetitions{}, warmup{}, timeout{};
  std::optional<uint64_t> seed{};
};

}  // namespace pipette::config
