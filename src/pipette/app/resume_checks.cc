#include "pipette/app/resume_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pipette/app/experiment_specs.h"
#include "pipette/build_info.h"
#include "pipette/config/canonical.h"
#include "pipette/env/fingerprint.h"
#include "pipette/quant/maker.h"
#include "pipette/runtime/registry.h"
#include "pipette/util/sha256.h"
#include "pipette/workload/kld/spec.h"
#include "pipette/workload/registry.h"

namespace pipette::app {
namespace {

Status CheckDatasetsUnchanged(const store::RunRecord& run, store::Store& store,
                              const config::Experiment& ex) {
  auto samples = store.SamplesOfRun(run.id, {"ppl_corpus", "mc_dataset", "gen_dataset", "kld_ref"});
  if (!samples) return samples.error();
  std::map<std::string, std::string> then;  // path -> SHA-256 the run measured with
  for (const auto& s : *samples) {
    if (s.test == "kld_ref") {
      const std::string sha =
          s.raw.value("request", nlohmann::json::object()).value("corpus_sha256", "");
      if (const auto* kld = workload::KldSpecOf(ex); kld && !sha.empty()) {
        then.emplace(kld->corpus, sha);
      }
    } else if (s.raw.contains("path") && s.raw.contains("sha256")) {
      then.emplace(s.raw.value("path", ""), s.raw.value("sha256", ""));
    }
  }
  for (const auto& [path, sha] : then) {
    auto now = Sha256File(path);
    if (!now) {
      return InputError(
          fmt::format("cannot resume run {}: the dataset {} it measured with is not "
                      "readable now: {}",
                      run.id, path, now.error().message));
    }
    if (*now != sha) {
      return InputError(
          fmt::format("cannot resume run {}: the dataset {} has changed: its SHA-256 "
                      "is {} now, {} when the run measured with it. Start a new run "
                      "instead",
                      run.id, path, *now, sha));
    }
  }
  return {};
}

nlohmann::json WithoutMachine(nlohmann::json resolved) {
  if (resolved.is_object()) resolved.erase("machine");
  return resolved;
}

}  // namespace

Status CheckSameExperiment(const store::RunRecord& run, const config::Experiment& ex,
                           const runtime::ParamRegistry& registry) {
  if (run.config_canonical.empty() || Sha256Hex(run.config_canonical) == run.config_hash) {
    return InputError(fmt::format(
        "cannot resume run {}: it was recorded by Pipette {} (commit {}), whose config_hash is "
        "that of the resolved experiment; this Pipette's covers what the file writes. One run is "
        "measured by one build: resume it with that build, or start a new run",
        run.id, run.pipette_version, run.pipette_commit));
  }
  const nlohmann::json then =
      WithoutMachine(nlohmann::json::parse(run.config_canonical, nullptr, false));
  const nlohmann::json now = WithoutMachine(ex.Resolved());
  if (ex.Hash() != run.config_hash) {
    // Most changes change a resolved value too ("seed: 42 then, 7 now"); a default written out
    // or left out changes only what the file writes.
    std::string diff = run::DescribeDifference(then.dump(), now.dump());
    if (auto written = config::ParseExperiment(run.config_text, run.experiment_path, registry,
                                               ExperimentSpecs(), runtime::Registry());
        diff.empty() && written) {
      diff = run::DescribeDifference(config::CanonicalForm(*written).dump(), ex.Canonical().dump());
    }
    if (diff.empty()) diff = "its config_hash differs";
    return InputError(
        fmt::format("cannot resume run {}: {} is not the experiment it ran ({}). "
                    "Start a new run instead",
                    run.id, ex.path, diff));
  }
  if (then != now) {
    std::string diff = run::DescribeDifference(then.dump(), now.dump());
    if (diff.empty()) diff = "its resolved form differs";
    return InputError(
        fmt::format("cannot resume run {}: {} is the experiment it ran, but it resolves to other "
                    "files or values here now ({}). Start a new run instead",
                    run.id, ex.path, diff));
  }
  return {};
}

Result<RunToResume> ReadRunToResume(store::Store& store, int64_t run_id,
                                    const env::ProcessTable& processes) {
  RunToResume r;
  auto run = store.Run(run_id);
  if (!run) return run.error();
  r.run = std::move(*run);
  r.run.status = store::LiveStatus(r.run, processes, store.path());
  auto cells = store.Cells(run_id);
  if (!cells) return cells.error();
  r.cells = std::move(*cells);
  return r;
}

Result<run::ResumePlan> PlanResumeOf(store::Store& store, const RunToResume& r,
                                     const config::Experiment& ex,
                                     const runtime::ParamRegistry& registry,
                                     const std::vector<plan::Cell>& cells, bool retry_failed) {
  const store::RunRecord& run = r.run;
  if (run.status == "running" || run.status == store::kRunningElsewhere) {
    const auto who = env::ProcessIdentity::FromJson(run.controller);
    return InputError(fmt::format("run {} in {} is {} ({}): it cannot be resumed while it runs",
                                  run.id, store.path(), run.status, who.Describe()));
  }
  if (auto st = CheckSameExperiment(run, ex, registry); !st) return st.error();
  if (run.n_cells != static_cast<int64_t>(cells.size())) {
    return InputError(fmt::format(
        "cannot resume run {}: it planned {} cell(s), the experiment now "
        "makes {}{}",
        run.id, run.n_cells, cells.size(), run.only.empty() ? "" : " with --only " + run.only));
  }
  if (auto st = CheckDatasetsUnchanged(run, store, ex); !st) return st.error();
  auto plan = run::PlanResume(cells, r.cells, retry_failed);
  if (!plan) {
    return InputError(fmt::format("cannot resume run {}: {}", run.id, plan.error().message));
  }
  plan->run_id = run.id;
  plan->resumes_seen = run.resumes;
  if (auto st = run::LoadReferences(store, ex, cells, workload::Registered(), &*plan); !st)
    return st.error();
  return plan;
}

Status CheckSameFilesAndBuild(const RunToResume& r, const std::vector<plan::Cell>& cells,
                              const run::ResumePlan& plan, device::Device& device) {
  const store::RunRecord& run = r.run;
  if (run.pipette_commit != kPipetteCommit) {
    return InputError(fmt::format(
        "cannot resume run {}: it was measured by Pipette {} (commit {}); this is {} (commit {}). "
        "One run is measured by one build: resume it with that build, or start a new run",
        run.id, run.pipette_version, run.pipette_commit, kPipetteVersion, kPipetteCommit));
  }
  std::map<std::string, std::string> then;  // model name -> SHA-256 the run measured
  for (const auto& c : r.cells) {
    if (!c.model_sha256.empty()) then.emplace(c.model_name, c.model_sha256);
  }
  std::map<std::string, std::string> checked;
  std::vector<std::string> workers;
  for (int i : plan.to_run) {
    const plan::Cell& cell = cells[static_cast<size_t>(i)];
    if (std::find(workers.begin(), workers.end(), cell.runtime.worker) == workers.end()) {
      workers.push_back(cell.runtime.worker);
    }
    auto it = then.find(cell.model.name);
    if (it == then.end() || checked.count(cell.model.name) || !cell.model.unavailable.empty()) {
      continue;
    }
    auto sha = Sha256File(cell.model.path);
    if (!sha) {
      return InputError(fmt::format("cannot resume run {}: {}", run.id, sha.error().message));
    }
    checked[cell.model.name] = *sha;
    if (*sha != it->second) {
      return InputError(fmt::format(
          "cannot resume run {}: model '{}' ({}) has changed: its SHA-256 is {} now, {} when the "
          "run measured it. Start a new run instead",
          run.id, cell.model.name, cell.model.path, *sha, it->second));
    }
  }
  // The runtime build of the kept cells, against what the worker says it is now.
  const store::CellRecord* kept = nullptr;
  for (const auto& c : r.cells) {
    if (c.status == "ok" && !c.runtime_version.empty()) kept = &c;
  }
  if (!kept) return {};
  const std::string commit = kept->runtime_build.value("llama_cpp_commit", "");
  for (const std::string& w : workers) {
    auto now = quant::AskQuantizer(device, w);
    if (!now) {
      return InputError(
          fmt::format("cannot resume run {}: cannot ask the worker {} which build "
                      "it is: {}",
                      run.id, w, now.error().message));
    }
    if (now->runtime_version != kept->runtime_version || now->commit != commit) {
      return InputError(fmt::format(
          "cannot resume run {}: its cells were measured with {} {} (commit {}); the worker is "
          "now {} (commit {}). One run is measured by one build: start a new run",
          run.id, kept->runtime, kept->runtime_version, commit, now->runtime_version, now->commit));
    }
  }
  return {};
}

void PrintResumePlan(const store::RunRecord& run, const std::vector<plan::Cell>& cells,
                     const run::ResumePlan& rp) {
  fmt::print("resume run {} ({}): {} of {} cell(s) to measure\n", run.id, run.status,
             rp.to_run.size(), cells.size());
  for (const plan::Cell& c : cells) {
    std::string what = "kept (complete)";
    if (std::find(rp.to_run.begin(), rp.to_run.end(), c.index) != rp.to_run.end()) {
      what = rp.supersede.count(c.index) ? "measured again from its start" : "measured";
    } else if (!rp.done.count(c.index)) {
      what = "kept (failed; --retry-failed measures it again)";
    }
    fmt::print("  {:>4}  {}  {}\n", c.index + 1, c.Key(), what);
  }
}

Result<std::map<std::string, store::EnvironmentRecord>> DeviceEnvironmentsOf(store::Store& store,
                                                                             const RunToResume& r) {
  std::map<std::string, store::EnvironmentRecord> out;
  for (const store::CellRecord& c : r.cells) {
    if (!c.environment_id || *c.environment_id == r.run.environment_id) continue;
    auto env = store.Environment(*c.environment_id);
    if (!env) return env.error();
    const nlohmann::json& device = env->facts.value("device", nlohmann::json::object());
    if (!device.contains("name") || !device["name"].is_string()) continue;
    out.emplace(device["name"].get<std::string>(), std::move(*env));
  }
  return out;
}

Status CheckSameDevice(const std::string& name, int64_t run_id,
                       const store::EnvironmentRecord& then, const nlohmann::json& now) {
  const std::string id = env::FingerprintId(now);
  if (id == then.fingerprint_id) return {};
  return RuntimeError(fmt::format(
      "device '{}' is not the one run {} measured on (fingerprint {}, {} then; {}, {} now): its "
      "cells are not measured. Resume the run with that device, or start a new run",
      name, run_id, then.fingerprint_id, then.facts.value("cpu_model", "?"), id,
      now.value("cpu_model", "?")));
}

}  // namespace pipette::app
