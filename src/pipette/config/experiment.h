// An experiment file: the four dimensions (models, runtimes, parameters, device) and the tests.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/config/params.h"
#include "pipette/config/parse.h"
#include "pipette/config/resolve_options.h"
#include "pipette/config/written.h"
#include "pipette/quant/variant.h"
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
  // Stored with every result on this model: where the file came from and how it was made.
  nlohmann::json provenance{};
  // Non-empty: the model could not be made or found, and this says why; its cells fail.
  std::string unavailable{};
  // The file's format ("gguf"); each runtime says which it loads (runtime/registry.h).
  std::string format{};
};

struct RuntimeSpec {
  std::string name;    // "llama.cpp"
  std::string worker;  // absolute path to the worker program
  int line = 0;
};

// Perplexity over a text corpus (docs/metrics.md "ppl").
struct PplSpec {
  std::string corpus;  // absolute path
  int n_ctx = 512;     // chunk length in tokens; the second half of each chunk is scored
  int chunks = 0;      // at most this many chunks; 0 = all
  int line = 0;
};

// Multiple choice scored by log-likelihood (docs/metrics.md "mc_acc").
struct McSpec {
  std::string dataset;    // absolute path to the JSONL file
  int limit = 0;          // the first `limit` items; 0 = all
  int64_t max_bytes = 0;  // longest prompt + choice in bytes: an upper bound on its tokens
  int64_t n_items = 0;
  int line = 0;
};
inline constexpr const char* kDefaultMcDataset = "mc/pipette-mc-v1.jsonl";

// Generation with checkers (docs/metrics.md "gen tasks"): greedy, the model's chat template.
struct GenSpec {
  std::string dataset;  // absolute path to the JSONL file
  int limit = 0;        // the first `limit` items; 0 = all
  // Variables for the chat template (llama-server's chat_template_kwargs): name -> JSON scalar.
  nlohmann::json template_options = nlohmann::json::object();
  int64_t n_items = 0;
  int64_t max_need = 0;  // bound on prompt + template + generated tokens of the largest item
  int line = 0;
};
inline constexpr const char* kDefaultGenDataset = "gen/pipette-gen-v1.jsonl";

// The text a multiple-choice item is scored in: the question, then each choice as the
// continuation of "Answer:" (lm-evaluation-harness style).
std::string McPrompt(const std::string& question);
std::string McContinuation(const std::string& choice);

// KL divergence against a reference model of the same experiment (docs/metrics.md "kld"),
// on the scored positions of ppl. `full` (the default): over the whole vocabulary, from both
// models' logits streamed side by side (a reference worker runs beside the cell's). `topk`: the
// reference's distribution kept as its top-k log-probabilities plus the mass of the rest, a
// lower bound (docs/metrics.md says why and the error bound). KldMode is in written.h.
struct KldSpec {
  std::string reference;  // name of a model of this experiment
  std::string corpus;     // absolute path
  int n_ctx = 512;
  int chunks = 8;   // 0 = all
  int top_k = 128;  // topk mode only
  int line = 0;
  KldMode mode = KldMode::kFull;
};

// The corpus Pipette ships (datasets/ppl), used when `ppl:` names none.
inline constexpr const char* kDefaultPplCorpus = "ppl/devils-dictionary.txt";

struct Experiment {
  std::string path;  // the file as given
  std::string name;  // `name:` or the file's stem
  std::string description;
  std::vector<ModelSpec> models;
  std::vector<RuntimeSpec> runtimes;
  std::string device = "local";
  // The registry parameters the file sets (and those with a Pipette default: n_ctx, depth), in
  // registry order, with the list of values to sweep. One not here is the runtime's default.
  std::vector<std::pair<std::string, std::vector<std::string>>> params;
  std::map<std::string, int> param_lines;  // where each swept parameter was written
  std::vector<TestSpec> tests;
  std::optional<PplSpec> ppl;  // quality: ppl
  std::optional<McSpec> mc;    // quality: mc
  std::optional<GenSpec> gen;  // quality: gen
  std::optional<KldSpec> kld;  // quality: kld
  // quality: divergence: the gen outputs compared token by token with this model's.
  std::optional<std::string> divergence_reference;
  int repetitions = 5;
  int warmup = 1;
  double timeout_s = 300;  // per worker request
  uint64_t seed = 42;
  std::string store = "results/pipette.db";
  std::string source_text;  // the file's bytes, kept with the run
  // Machine-derived: CPU threads the quantizer uses to make variants (every logical CPU).
  int quantize_threads = 1;
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
Result<Experiment> LoadExperiment(const std::string& path, const ParamRegistry& registry,
                                  const ResolveOptions& options);
// Parses `text` (config/parse.h: pure), resolves what it names on this machine
// (config/resolve.h) and checks the whole (config/validate.h). Every error names file:line:column
// and the problem, suggests the nearest known key, and carries exit code 2. `path` is used in
// messages and to resolve relative paths.
Result<Experiment> ExperimentFromText(const std::string& text, const std::string& path,
                                      const ParamRegistry& registry, const ResolveOptions& options);

}  // namespace pipette::config
