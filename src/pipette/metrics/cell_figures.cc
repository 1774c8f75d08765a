// The cell's own facts as figures (cell_figures.h): the load, the memory, the model file.
#include "pipette/metrics/cell_figures.h"

#include <algorithm>
#include <string>
#include <utility>

#include "pipette/metrics/roofline.h"
#include "pipette/metrics/row_builder.h"
#include "pipette/util/json_read.h"

namespace pipette::metrics {
namespace {

using json_read::Flag;
using json_read::Int;
using json_read::Member;
using nlohmann::json;

// load (docs/metrics.md): from the load call until the runtime can accept a prompt, i.e. the
// model load that served the cell plus the creation of the cell's own context.
void AddLoad(RowBuilder& b, const store::SampleRecord& load, const store::SampleRecord* context) {
  // A server already running loaded its model before Pipette came: no load to time.
  if (!Flag(load.raw, "load_measured", true)) return;
  const auto model_ms = LoadMs(load.raw);
  double context_ms = -1;
  if (context) context_ms = LoadMs(context->raw).value_or(-1);
  if (model_ms && context_ms >= 0) b.Add("load", "time", "ms", *model_ms + context_ms);
  if (model_ms) b.Add("load", "model_load", "ms", *model_ms);
  if (context_ms >= 0) b.Add("load", "context_init", "ms", context_ms);
  auto before = Int(load.raw, "rss_before"), after = Int(load.raw, "rss_after");
  if (before && after) b.Add("load", "rss_delta", "bytes", double(*after - *before));
  // What the runtime did not run as asked (ONNX Runtime's load reply): nodes it assigned to
  // another execution provider, and the casts it inserted where a provider lacks a kernel for a
  // type; each count also by op type, as rows of that subset (the op type).
  if (const auto f = load.raw.find("fallback"); f != load.raw.end() && f->is_object()) {
    for (const auto& [metric, by_op] : {std::pair{"nodes_on_other_providers", "other_provider_ops"},
                                        std::pair{"inserted_casts", "inserted_cast_ops"}}) {
      if (auto v = Int(*f, metric)) b.Add("load", metric, "nodes", double(*v));
      const auto ops = f->find(by_op);
      if (ops == f->end() || !ops->is_object()) continue;
      for (const auto& [op, count] : ops->items()) {
        if (count.is_number_integer()) b.Add("load", metric, "nodes", count.get<double>(), op);
      }
    }
  }
}

// The cell's samples `test` (the last of them), or null.
const store::SampleRecord* Last(const CellSamples& c, const std::string& test) {
  const store::SampleRecord* found = nullptr;
  for (const auto& s : c.samples) {
    if (s.test == test) found = &s;
  }
  return found;
}

class CellFactsDeriver : public RowDeriver {
 public:
  std::string Name() const override { return "cell"; }

  Status Derive(const ResultRow& base, const CellSamples& c, const CellsById& by_id,
                const store::EnvironmentRecord& env, std::vector<ResultRow>* rows) const override {
    RowBuilder b;
    for (const auto& s : c.samples) {
      if (s.warmup || s.test != "memory") continue;
      // Without a reset at the cell's start, VmHWM would include earlier cells: not this cell's.
      // Pages swapped out (a phone's zram) are not in VmHWM: the worker's largest VmRSS + VmSwap
      // sampled since the reset counts them (docs/metrics.md "peak RSS").
      const bool reset = Flag(Member(s.raw, "reset"), "supported", false);
      if (auto v = Int(s.raw, "hwm"); v && reset) {
        const int64_t footprint = Int(s.raw, "footprint_peak").value_or(0);
        b.Add("memory", "peak_rss", "bytes", double(std::max(*v, footprint)));
      }
    }
    const store::SampleRecord* context = Last(c, "context");
    // The load that served the cell: its own, or an earlier cell's (a model loaded once serves
    // consecutive cells).
    if (c.cell.load_cell_id) {
      if (auto it = by_id.find(*c.cell.load_cell_id); it != by_id.end()) {
        if (const store::SampleRecord* load = Last(*it->second, "load")) AddLoad(b, *load, context);
      }
    }
    if (context) {
      // The runtime's own figure where it reports one (llama.cpp's log), and the model's always
      // (docs/metrics.md "kv_bytes"): side by side, each checks the other.
      if (auto v = Int(context->raw, "kv_buffer_bytes")) {
        b.Add("memory", "kv_bytes_allocated", "bytes", double(*v));
      }
      const Roofline roof = RooflineOf(c.cell, env.facts, context->raw);
      if (auto kv = KvBytesAllocated(roof, context->raw)) {
        b.Add("memory", "kv_bytes_allocated_model", "bytes", *kv);
      }
    }
    if (c.cell.model_file_size > 0) {
      b.Add("model", "file_size", "bytes", double(c.cell.model_file_size));
    }
    b.AppendRows(base, rows);
    return {};
  }

  void Complete(const ResultRow& base, const CellSamples& c, const store::EnvironmentRecord& env,
                std::vector<ResultRow>* rows, size_t) const override {
    // A served model's KV cache that cannot be given, with the reason.
    if (const store::SampleRecord* context = Last(c, "context")) {
      const Roofline roof = RooflineOf(c.cell, env.facts, context->raw);
      if (!KvBytesAllocated(roof, context->raw)) {
        if (std::string why = KvBytesAllocatedNa(roof, context->raw); !why.empty()) {
          rows->push_back(
              NaRow(base, "memory", "kv_bytes_allocated_model", "bytes", std::move(why)));
        }
      }
    }
    // A phase the cell's runtime does not serve (the runner stores it as an `na` sample): one
    // n/a row for all its figures, with the reason.
    for (const auto& s : c.samples) {
      if (s.test != "na" || !s.raw.is_object()) continue;
      const json& phase = s.raw.value("phase", json());
      const json& reason = s.raw.value("reason", json());
      rows->push_back(NaRow(base, phase.is_string() ? phase.get<std::string>() : "?", "all", "",
                            reason.is_string() ? reason.get<std::string>() : "not measured"));
    }
    for (const auto& s : c.samples) {
      if (s.test == "memory" && !Flag(Member(s.raw, "reset"), "supported", false)) {
        rows->push_back(
            NaRow(base, "memory", "peak_rss", "bytes",
                  "the worker could not reset its peak-memory mark at the start of the cell"));
      }
    }
  }
};

}  // namespace

const RowDeriver& CellDeriver() {
  static const CellFactsDeriver kDeriver;
  return kDeriver;
}

std::vector<FigureDef> CellFigures() {
  constexpr auto kNot = Better::kNotJudged;
  constexpr auto kOnce = Statistic::kMeasuredOnce;
  return FigureList()
      .Add("load", {"time"}, "ms", FigureKind::kSpeed, Better::kLower)
      .Score(ScoreGroup::kEngineering, "load_time", Better::kLower)
      .Add("load", {"model_load", "context_init"}, "ms", FigureKind::kSpeed, Better::kLower)
      .Add("load", {"rss_delta"}, "bytes", FigureKind::kMemory, kNot, ValueKind::kSigned)
      .Add("load", {"nodes_on_other_providers", "inserted_casts"}, "nodes", FigureKind::kFact, kNot)
      .Add("memory", {"peak_rss"}, "bytes", FigureKind::kMemory, Better::kLower, ValueKind::kAmount,
           kOnce)
      .Score(ScoreGroup::kEfficiency, "peak_rss", Better::kLower)
      .Shows(Shown::kPeakMemory)
      .Vary("peak RSS")
      .Add("memory", {"kv_bytes_allocated"}, "bytes", FigureKind::kMemory, Better::kLower,
           ValueKind::kAmount, kOnce)
      .Shows(Shown::kKvAllocated)
      .Add("memory", {"kv_bytes_allocated_model"}, "bytes", FigureKind::kMemory, kNot,
           ValueKind::kAmount, kOnce)
      .Add("model", {"file_size"}, "bytes", FigureKind::kMemory, Better::kLower, ValueKind::kAmount,
           kOnce)
      .Score(ScoreGroup::kEngineering, "file_size", Better::kLower)
      .Vary("file size")
      .Take();
}

}  // namespace pipette::metrics
