#include "pipette/config/experiment.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipette/config/canonical.h"
#include "pipette/config/parse.h"
#include "pipette/config/resolve.h"
#include "pipette/config/validate.h"

namespace pipette::config {
namespace fs = std::filesystem;

std::string McPrompt(const std::string& question) { return "Question: " + question + "\nAnswer:"; }
std::string McContinuation(const std::string& choice) { return " " + choice; }

nlohmann::json Experiment::Canonical() const { return CanonicalForm(written); }

std::string Experiment::Hash() const { return ConfigHash(written); }

nlohmann::json Experiment::Resolved() const {
  nlohmann::json j;
  j["name"] = name;
  j["device"] = device;
  for (const auto& m : models) {
    nlohmann::json mj = {{"name", m.name}, {"path", m.path}};
    if (m.variant) mj["variant"] = m.variant->Definition();
    j["models"].push_back(mj);
  }
  for (const auto& r : runtimes) j["runtimes"].push_back(r.name);
  for (const auto& [k, vs] : params) j["params"][k] = vs;
  for (const auto& t : tests) j["tests"].push_back(t.name);
  if (mc) j["quality"]["mc"] = {{"dataset", mc->dataset}, {"limit", mc->limit}};
  if (gen) {
    j["quality"]["gen"] = {{"dataset", gen->dataset}, {"limit", gen->limit}};
    if (!gen->template_options.empty()) {
      j["quality"]["gen"]["template_options"] = gen->template_options;
    }
  }
  if (divergence_reference) j["quality"]["divergence"] = *divergence_reference;
  if (kld) {
    j["quality"]["kld"] = {{"reference", kld->reference},
                           {"corpus", kld->corpus},
                           {"n_ctx", kld->n_ctx},
                           {"chunks", kld->chunks},
                           {"mode", kld->mode == KldMode::kTopK ? "topk" : "full"}};
    if (kld->mode == KldMode::kTopK) j["quality"]["kld"]["top_k"] = kld->top_k;
  }
  if (ppl) {
    j["quality"]["ppl"] = {{"corpus", ppl->corpus}, {"n_ctx", ppl->n_ctx}, {"chunks", ppl->chunks}};
  }
  j["repetitions"] = repetitions;
  j["warmup"] = warmup;
  j["timeout"] = timeout_s;
  j["seed"] = seed;
  j["machine"] = {{"quantize_threads", quantize_threads}};
  return j;
}

Result<Experiment> ExperimentFromText(const std::string& text, const std::string& path,
                                      const ParamRegistry& registry,
                                      const ResolveOptions& options) {
  auto written = ParseExperiment(text, path, registry, RuntimesOf(options));
  if (!written) return written.error();
  auto ex = Resolve(*written, registry, options);
  if (!ex) return ex.error();
  if (auto st = ValidateAndOrder(&*ex); !st) return st.error();
  return ex;
}

Result<Experiment> LoadExperiment(const std::string& path, const ParamRegistry& registry,
                                  const ResolveOptions& options) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return ErrorAt({.file = path}, "is a directory, not an experiment file", 2);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrorAt({.file = path}, "cannot read the experiment file", 2);
  std::stringstream ss;
  ss << in.rdbuf();
  return ExperimentFromText(ss.str(), path, registry, options);
}

}  // namespace pipette::config
