#include "pipette/config/experiment.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipette/config/canonical.h"
#include "pipette/config/parse.h"
#include "pipette/config/resolve.h"
#include "pipette/config/spec_def.h"
#include "pipette/config/validate.h"
#include "pipette/util/files.h"

namespace pipette::config {
namespace fs = std::filesystem;

nlohmann::json Experiment::Canonical() const { return CanonicalForm(written); }

std::string Experiment::Hash() const { return ConfigHash(written); }

nlohmann::json Experiment::Resolved() const {
  nlohmann::json j;
  j["name"] = name;
  j["device"] = device;
  // Only when the file names devices: a run stored before devices: resolves as it did then (a
  // resume compares this form).
  if (!written.devices.empty()) {
    for (const DeviceSpec& d : devices) j["devices"].push_back(d.ToJson());
  }
  for (const auto& m : models) {
    nlohmann::json mj = {{"name", m.name}, {"path", m.path}};
    if (m.variant) mj["variant"] = m.variant->Definition();
    if (m.conversion) mj["conversion"] = m.conversion->Definition();
    j["models"].push_back(mj);
  }
  for (const auto& r : runtimes) j["runtimes"].push_back(r.name);
  for (const auto& [k, vs] : params) j["params"][k] = vs;
  for (const auto& t : tests) j["tests"].push_back(t.name);
  for (const QualitySpec& q : quality.all()) j["quality"][q.name] = q.def->Resolved(q.value);
  for (const QualitySpec& s : sections.all()) {
    if (s.def->Hashed()) j[s.name] = s.def->Resolved(s.value);
  }
  j["repetitions"] = repetitions;
  j["warmup"] = warmup;
  j["timeout"] = timeout_s;
  j["seed"] = seed;
  j["machine"] = {{"quantize_threads", quantize_threads}};
  return j;
}

Result<Experiment> ExperimentFromText(const std::string& text, const std::string& path,
                                      const runtime::ParamRegistry& registry,
                                      const ResolveOptions& options) {
  if (!options.runtimes) return RuntimeError("config: ResolveOptions.runtimes is unset");
  auto written = ParseExperiment(text, path, registry, SpecsOf(options), RuntimesOf(options));
  if (!written) return written.error();
  auto ex = Resolve(*written, registry, options);
  if (!ex) return ex.error();
  if (auto st = ValidateAndOrder(&*ex); !st) return st.error();
  return ex;
}

Result<Experiment> LoadExperiment(const std::string& path, const runtime::ParamRegistry& registry,
                                  const ResolveOptions& options) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return ErrorAt({.file = path}, "is a directory, not an experiment file", 2);
  }
  Result<std::string> text = ReadFileToString(path);
  if (!text) {
    Error e = text.error();
    e.exit_code = 2;
    return e;
  }
  return ExperimentFromText(*text, path, registry, options);
}

}  // namespace pipette::config
