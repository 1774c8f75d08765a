// Every figure Pipette reports is derived once, from the raw facts workers returned
// (docs/metrics.md), by the derivers given: each workload's by its folder (RowDeriver::Derive,
// which workload::Workload implements: the speed tests' in workload/speed), the cell's own facts
// (load, memory, model file) by metrics/cell_figures.h. This file holds the rows, the cell facts
// they share and the loop over the cells. The report (src/pipette/report/) formats these rows and
// computes nothing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/estimate/history.h"
#include "pipette/stats/stats.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"

namespace pipette::metrics {

// The facts every row of one cell shares: its run and place, the model, the runtime, the device
// and the parameters. Built once per cell (CellFactsOf) and shared by all its rows, never copied
// into each.
struct CellFacts {
  int64_t run_id = 0;
  int64_t cell_id = 0;
  int cell_index = 0;
  std::string cell_status;  // ok | failed | running
  std::string model;
  std::string model_sha256;
  int64_t model_file_size = 0;
  int64_t n_params = 0;
  std::string quant;         // the quantization: the file's type, or a variant's label
  std::string quant_origin;  // variants: "re-quantized from Q4_1" / "quantized from F16"
  std::string base_model;    // the model a variant was made from; the model itself otherwise
  // Not reported: what groups files of one model (their GGUF general.name, else base_model), so
  // that `report --vary quant` compares them in one table.
  std::string family;
  nlohmann::json provenance;  // variants: how the file was made (null for other models)
  std::string runtime;
  std::string runtime_version;
  nlohmann::json runtime_build = nlohmann::json::object();  // commit, system info, backends
  // The machine that ran it: this machine's CPU model; another device's experiment name with its
  // CPU ("board: Cortex-A76"), and for an emulated one what it emulated on which host
  // ("board: aarch64 emulated by qemu-aarch64 on Intel Xeon").
  std::string device;
  std::string device_id;
  bool emulated = false;  // run under an emulator: its timings describe the emulator, not a chip
  // Run in an emulated tier (a cpuset, CPU quota or memory cap of a bigger machine): `device`
  // says "(emulated tier: ...)".
  bool emulated_tier = false;
  // What ran: every parameter, those the experiment left unset as the runtime applied them
  // (flash_attn as the runtime resolved it: on/off, "auto" when it did not say).
  nlohmann::json params = nlohmann::json::object();
  // What the experiment set (the rest were the runtime's defaults); older stores: = params.
  nlohmann::json params_set = nlohmann::json::object();
  // Non-empty: the cell was measured under a warning that makes its figures untrustworthy, and
  // this says which (another Pipette measuring on the machine during the cell; the readiness
  // gate finding the device not ready). Every report format carries it on the cell's rows;
  // compare marks the verdict and leaves a gate line on it undecided.
  std::string untrusted;
};

// The warning that makes a cell's figures untrustworthy, from its stored conditions
// (`other_pipette`, `not_ready`), or "" (CellFacts::untrusted).
std::string UntrustedReason(const nlohmann::json& conditions);

// Facts with every field at its default, shared (what a default ResultRow refers to).
const std::shared_ptr<const CellFacts>& NoCellFacts();

// The stored environments by id: a cell measured on another device than its run's names its own.
using Environments = std::map<int64_t, store::EnvironmentRecord>;
// The environment `cell` was measured in: its own (cell.environment_id) when `envs` holds it,
// else the run's `env`.
const store::EnvironmentRecord& EnvironmentOf(const store::CellRecord& cell,
                                              const store::EnvironmentRecord& env,
                                              const Environments* envs);
// How the row's `device` names the machine of a fingerprint (CellFacts::device).
std::string DeviceLabel(const nlohmann::json& facts);

// The facts of `cell` of `run`, measured in `env`; `params_set`: what the experiment set (the
// cell's context sample says; ParamsSet).
CellFacts CellFactsOf(const store::RunRecord& run, const store::EnvironmentRecord& env,
                      const store::CellRecord& cell, const nlohmann::json& params_set);

// One figure of one test of one cell, summarised over its recorded repetitions.
struct ResultRow {
  std::shared_ptr<const CellFacts> cell = NoCellFacts();  // never null
  // The row's own copy of its facts, to change (rows made by hand: tests); the rows it shared
  // them with keep theirs.
  CellFacts& EditCell();

  std::string test;    // pp512, tg128, ttft@64, load, memory, model
  std::string metric;  // throughput, itl_p50, ttft, time, rss_delta, peak_rss, file_size...
  std::string unit;    // t/s, ms, bytes
  stats::Summary summary;
  std::vector<double> samples;  // the recorded repetitions (or chunks, for ppl), in order
  // The figure itself: the median for repeated measurements, the corpus-level estimate for a
  // quality figure (with its standard error when it has one).
  double value = 0;
  std::optional<double> std_error;
  std::string dataset;  // file the figure was computed on, if any
  std::string dataset_sha256;
  std::string na_reason;  // non-empty: the figure is n/a, and this says why
  std::string subset;     // part of a dataset ("en", "zh", "en/reasoning"); "" = all
  std::optional<double> ci_low, ci_high;  // 95% interval of `value`, where it has one
  // gen figures: the chat template that made the prompts (sha256, origin, options,
  // enable_thinking); null for other figures.
  nlohmann::json chat_template;
};

// The span of a reply from t_start_ns to t_end_ns, in ms (a load's, a context's).
std::optional<double> LoadMs(const nlohmann::json& raw);

struct CellSamples {
  store::CellRecord cell;
  std::vector<store::SampleRecord> samples;
};

// Every cell of a run by its id: what a figure measured against a reference cell looks up.
using CellsById = std::map<int64_t, const CellSamples*>;

// What a workload gives the derivation of a run's rows (workload::Workload is one): its figures
// of a cell, how its samples read as timed requests, and whether a cell's rows read other cells.
// Whoever holds the workloads hands them down (workload::Derivers(), from app/): metrics/ never
// asks for them. Every answer depends on the samples given alone (no clock, no machine, no file),
// so that rows cached from them stay right.
class RowDeriver {
 public:
  virtual ~RowDeriver() = default;
  virtual std::string Name() const = 0;
  // One of its stored samples as a measured request, for the history time estimates start from
  // (metrics/history.h): kind, units and seconds as it plans them (workload::Workload::PlanWork);
  // nullopt for a sample of another workload or of no timed request.
  virtual std::optional<estimate::Measured> Timed(const store::SampleRecord& s) const {
    (void)s;
    return std::nullopt;
  }
  // Its figures of one cell from the cell's stored samples (docs/metrics.md), appended to `rows`,
  // each starting from `base` (the cell's identity). `by_id`: every cell of the run, for figures
  // measured against a reference cell; `env`: the environment the cell was measured in (its
  // machine's facts: the memory bandwidth). An error when a stored sample cannot be read: the
  // report then shows this workload's figures of the cell as n/a with it.
  virtual Status Derive(const ResultRow& base, const CellSamples& cell, const CellsById& by_id,
                        const store::EnvironmentRecord& env, std::vector<ResultRow>* rows) const {
    (void)base, (void)cell, (void)by_id, (void)env, (void)rows;
    return {};
  }
  // After every deriver's rows of the cell (`rows` from `first` on): the figures it makes of
  // another's rows (a speed test's time per 1000 characters, from the ppl corpus's density) and
  // the n/a rows it shows last, appended to `rows`.
  virtual void Complete(const ResultRow& base, const CellSamples& cell,
                        const store::EnvironmentRecord& env, std::vector<ResultRow>* rows,
                        size_t first) const {
    (void)base, (void)cell, (void)env, (void)rows, (void)first;
  }
  // Whether its figures of a cell with these samples read another cell's samples (a reference
  // cell's): such a cell's rows are never cached, and a report deriving it live reads every cell
  // of the run (metrics/row_cache.h).
  virtual bool ReadsOtherCells(const std::vector<store::SampleRecord>& samples) const {
    (void)samples;
    return false;
  }
  // Whether a cell's rows may be cached when it finishes, given that it reads no other cell
  // (false: the report needs the samples themselves, as mc's per-item table does).
  virtual bool RowsCacheable(const std::vector<store::SampleRecord>& samples) const {
    (void)samples;
    return true;
  }
};
using RowDerivers = std::vector<const RowDeriver*>;

// All rows for a run's cells, in cell order: for each cell every deriver's rows in the order
// given (the workloads' and the cell facts': workload::Derivers() from app/), then what each
// completes (RowDeriver::Complete). `envs`: the environments of cells measured on other devices
// (EnvironmentOf).
std::vector<ResultRow> DeriveRows(const store::RunRecord& run, const store::EnvironmentRecord& env,
                                  const std::vector<CellSamples>& cells,
                                  const RowDerivers& derivers, const Environments* envs = nullptr);

}  // namespace pipette::metrics
