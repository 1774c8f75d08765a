#include "pipette/app/variants.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>

#include "pipette/app/made_models.h"
#include "pipette/runtime/registry.h"

namespace pipette::app {
namespace fs = std::filesystem;

namespace {

// The worker of the first runtime that makes variants (llama.cpp's quantizer), whichever
// runtimes the cells use.
std::string QuantizerWorker(const config::Experiment& ex) {
  for (const auto& r : ex.runtimes) {
    const runtime::Runtime* entry = runtime::Registry().Find(r.name);
    if (entry && entry->makes_variants) return r.worker;
  }
  return "";
}

bool Used(const std::string& model, const std::vector<plan::Cell>& cells) {
  for (const auto& c : cells) {
    if (c.model.name == model) return true;
  }
  return false;
}

}  // namespace

std::vector<quant::MakeJob> VariantJobs(const config::Experiment& ex) {
  std::vector<quant::MakeJob> jobs;
  for (const auto& m : ex.models) {
    if (!m.variant) continue;
    quant::MakeJob job;
    job.spec = *m.variant;
    job.output = m.path;
    if (m.variant->imatrix) {
      job.imatrix =
          (fs::path(m.path).parent_path() / "imatrix" / quant::ImatrixFileName(*m.variant))
              .string();
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

void WarnRequantized(const config::Experiment& ex) {
  std::set<std::string> said;
  for (const auto& m : ex.models) {
    if (!m.variant || !m.variant->Requantized() || !said.insert(m.variant->base_path).second) {
      continue;
    }
    fmt::print(stderr,
               "warning: the base '{}' is itself quantized ({}): its variants are "
               "re-quantizations of those weights, not quantizations from full precision, and "
               "reports mark them so. Compare them with each other, not with published figures "
               "for the same types; give a F16/BF16 base to quantize from full precision.\n",
               m.variant->base_name,
               m.variant->base_quant.empty() ? "unknown type" : m.variant->base_quant);
  }
}

void PrintVariantPlan(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                      device::Device& device) {
  const auto jobs = VariantJobs(ex);
  if (jobs.empty()) return;
  auto identity = quant::AskQuantizer(device, QuantizerWorker(ex));
  if (!identity) {
    fmt::print("variants: cannot ask the quantizer which build it is: {}\n",
               identity.error().message);
    return;
  }
  int to_make = 0;
  for (const auto& job : jobs) {
    if (!Used(job.spec.name, cells)) continue;
    const bool cached = quant::CachedProvenance(job, *identity).has_value();
    to_make += !cached;
    fmt::print("variant {}: {} ({} of {}, {})\n", job.spec.name, cached ? "cached" : "to make",
               job.spec.type, job.spec.base_name, quant::OriginNote(job.spec.Provenance()));
  }
  if (to_make > 0) fmt::print("variants to make before the cells: {}\n", to_make);
}

void MakeVariantsFor(const config::Experiment& ex, device::Device& device,
                     std::vector<plan::Cell>* cells, const std::atomic<bool>* stop) {
  std::vector<quant::MakeJob> jobs;
  for (auto& job : VariantJobs(ex)) {
    if (Used(job.spec.name, *cells)) jobs.push_back(std::move(job));
  }
  if (jobs.empty() || ex.runtimes.empty()) return;
  quant::MakerOptions options;
  options.worker = QuantizerWorker(ex);
  options.stop = stop;
  options.n_threads = ex.quantize_threads;  // derived from the machine when resolved
  options.timeout_s = std::max(600.0, ex.timeout_s);
  options.say = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  const auto results = quant::MakeVariants(jobs, device, options);
  std::vector<std::string> names;
  for (const auto& job : jobs) names.push_back(job.spec.name);
  GiveCellsTheirModels(names, results, "variant", fs::path(jobs[0].output).parent_path().string(),
                       cells);
}

}  // namespace pipette::app
