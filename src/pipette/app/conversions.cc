#include "pipette/app/conversions.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "pipette/app/made_models.h"
#include "pipette/build_info.h"

namespace pipette::app {
namespace fs = std::filesystem;

namespace {

bool Used(const std::string& model, const std::vector<plan::Cell>& cells) {
  for (const auto& c : cells) {
    if (c.model.name == model) return true;
  }
  return false;
}

std::vector<convert::ConvertJob> UsedJobs(const config::Experiment& ex,
                                          const std::vector<plan::Cell>& cells) {
  std::vector<convert::ConvertJob> jobs;
  for (auto& job : ConversionJobs(ex)) {
    if (Used(job.spec.name, cells)) jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace

std::vector<convert::ConvertJob> ConversionJobs(const config::Experiment& ex) {
  std::vector<convert::ConvertJob> jobs;
  for (const auto& m : ex.models) {
    if (!m.conversion) continue;
    jobs.push_back({*m.conversion, fs::path(m.path).parent_path().string()});
  }
  return jobs;
}

convert::ConverterOptions ConverterOptionsHere(const config::Experiment& ex) {
  convert::ConverterOptions o;
  const char* py = std::getenv("PIPETTE_PYTHON");
  o.python = py && *py ? py : kPipetteVenvPython;
  const char* dir = std::getenv("PIPETTE_CONVERTER_DIR");
  o.converter_dir =
      dir && *dir ? dir : (fs::path(kPipetteSourceDir) / "converters" / "onnx").string();
  o.timeout_s = std::max(3600.0, ex.timeout_s);
  o.say = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  return o;
}

void PrintConversionPlan(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                         CommandRunner& runner) {
  const auto jobs = UsedJobs(ex, cells);
  if (jobs.empty()) return;
  auto identity = convert::AskConverter(runner, ConverterOptionsHere(ex));
  if (!identity) {
    fmt::print("converted models: cannot ask the converter its version: {}\n",
               identity.error().message);
    return;
  }
  int to_convert = 0;
  for (const auto& job : jobs) {
    const bool cached = convert::CachedConversion(job, *identity).has_value();
    to_convert += !cached;
    fmt::print("converted {}: {} ({} of {}, {})\n", job.spec.name, cached ? "cached" : "to convert",
               job.spec.Label(), job.spec.base_name, job.spec.Provenance().value("note", ""));
  }
  if (to_convert > 0) {
    fmt::print("models to convert before the cells: {} (converter {})\n", to_convert,
               identity->version);
  }
}

void MakeConversionsFor(const config::Experiment& ex, CommandRunner& runner,
                        std::vector<plan::Cell>* cells, const std::atomic<bool>* stop) {
  const auto jobs = UsedJobs(ex, *cells);
  if (jobs.empty()) return;
  convert::ConverterOptions options = ConverterOptionsHere(ex);
  options.stop = stop;
  const auto results = convert::MakeConversions(jobs, runner, options);
  std::vector<std::string> names;
  for (const auto& job : jobs) names.push_back(job.spec.name);
  GiveCellsTheirModels(names, results, "converted model",
                       fs::path(jobs[0].output).parent_path().string(), cells);
}

}  // namespace pipette::app
