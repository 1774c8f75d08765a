// An experiment file: the four dimensions (models, runtimes, parameters, device) and the tests.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/config/endpoint_spec.h"
#include "pipette/config/parse.h"
#include "pipette/config/quality_specs.h"
#include "pipette/config/resolve_options.h"
#include "pipette/config/written.h"
#include "pipette/convert/conversion.h"
#include "pipette/quant/variant.h"
#include "pipette/runtime/params.h"
#include "pipette/util/result.h"

namespace pipette::config {

struct ModelSpec {
  std::string name;         // display name: the bundled name or the file's stem
  std::string path;         // absolute path to the file
  std::string source;       // "bundled:<name>" or "path"
  int line = 0;             // where the experiment file named it
  int64_t n_ctx_train = 0;  // the context the model was trained for (GGUF metadata; 0: unknown)
  std::string quant{};      // the file's quantization (GGUF file type), "" when unknown
  // A variant made by `quantize:` (its file may not exist until the run makes it).
  std::optional<quant::VariantSpec> variant{};
  // A variant made by `convert:` (its folder may not exist until the run makes it).
  std::optional<convert::ConversionSpec> conversion{};
  // Stored with every result on this model: where the file came from and how it was made.
  nlohmann::json provenance{};
  // Non-empty: the model could not be made or found, and this says why; its cells fail.
  std::string unavailable{};
  // The file's format ("gguf"); each runtime says which it loads (runtime/registry.h).
  std::string format{};
  // A model converted from another file (an ONNX conversion of a GGUF): that file, whose
  // tokenizer the model's must agree with token for token (Experiment::source_tokenizer
  // tokenizes it); "" for any other model.
  std::string tokenizer_source{};
};

struct RuntimeSpec {
  std::string name;    // "llama.cpp"
  std::string worker;  // absolute path to the worker program; "" for an endpoint
  int line = 0;
  // An endpoint runtime (runtime::Endpoint): where its server is, or how Pipette starts it.
  std::optional<endpoint::EndpointSpec> endpoint{};
};

struct Experiment {
  std::string path;  // the file as given
  std::string name;  // `name:` or the file's stem
  std::string description;
  std::vector<ModelSpec> models;
  std::vector<RuntimeSpec> runtimes;
  std::string device = "local";  // `device:` as written (older files): "local"
  // The devices cells run on, in the order written; none written: {local}.
  std::vector<DeviceSpec> devices{DeviceSpec{}};
  // The registry parameters the file sets (and those with a Pipette default: n_ctx, depth), in
  // registry order, with the list of values to sweep. One not here is the runtime's default.
  std::vector<std::pair<std::string, std::vector<std::string>>> params;
  std::map<std::string, int> param_lines;  // where each swept parameter was written
  std::vector<TestSpec> tests;
  // quality: each workload's spec as resolved, of its own type: read through the workload's
  // folder (workload/ppl/spec.h: ppl::SpecOf(ex)).
  QualitySpecs quality;
  // The top-level sections their owners define (select:), as resolved.
  QualitySpecs sections;
  int repetitions = 5;
  int warmup = 1;
  // `pipette run --interleave` (not the file's: not in the hash): every cell visited once per
  // repetition, in rounds (A B A B ...), each visit warming up again. The runner visits so, and
  // the workloads plan their work so.
  bool interleave = false;
  double timeout_s = 300;  // per worker request
  uint64_t seed = 42;
  std::string store = "results/pipette.db";
  std::string source_text;  // the file's bytes, kept with the run
  // Machine-derived: CPU threads the quantizer uses to make variants (every logical CPU).
  int quantize_threads = 1;
  // The worker program that renders chat templates for a runtime without an engine of its own
  // (runtime::Runtime::renders_chat_templates: llama.cpp's; the file's own `worker:` for it when
  // it names one); "" when no registered runtime renders them.
  std::string chat_renderer;
  // The worker program that loads the source file of a converted model (ModelSpec::
  // tokenizer_source; the first registered runtime that loads GGUF: llama.cpp's), to check the
  // converted tokenizer against it; "" when none is registered.
  std::string source_tokenizer;
  // What the file says, as parsed: the canonical form and config_hash come from this alone.
  WrittenExperiment written;

  // The canonical form of what the file writes (config/canonical.h): the keys it gives, never
  // defaults it leaves out, resolved paths or facts of this machine.
  nlohmann::json Canonical() const;
  // config_hash: SHA-256 of Canonical().dump().
  std::string Hash() const;
  // The experiment as it resolved here, stored beside the hash: every value that defines the
  // measurement with defaults applied and names resolved to files (key "machine": the values
  // derived from this machine).
  nlohmann::json Resolved() const;
};

// Reads an experiment file, then ExperimentFromText.
Result<Experiment> LoadExperiment(const std::string& path, const runtime::ParamRegistry& registry,
                                  const ResolveOptions& options);
// Parses `text` (config/parse.h: pure), resolves what it names on this machine
// (config/resolve.h) and checks the whole (config/validate.h). Every error names file:line:column
// and the problem, suggests the nearest known key, and carries exit code 2. `path` is used in
// messages and to resolve relative paths.
Result<Experiment> ExperimentFromText(const std::string& text, const std::string& path,
                                      const runtime::ParamRegistry& registry,
                                      const ResolveOptions& options);

}  // namespace pipette::config
