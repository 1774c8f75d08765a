#include "pipette/workload/speed/derive.h"

#include <map>
#include <optional>
#include <string>

#include "pipette/metrics/roofline.h"
#include "pipette/metrics/row_builder.h"
#include "pipette/stats/stats.h"
#include "pipette/workload/ppl/derive.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::workload::speed {
namespace {

using nlohmann::json;

// Each measured repetition of a speed test of `cell`, by its kind, into `out`.
void Collect(const TestKindTable& table, const metrics::CellSamples& cell,
             const store::EnvironmentRecord& env, SpeedRows& out) {
  const store::SampleRecord* context = nullptr;
  for (const auto& s : cell.samples) {
    if (s.test == "context") context = &s;
  }
  const metrics::Roofline roof =
      metrics::RooflineOf(cell.cell, env.facts, context ? context->raw : json());
  std::map<std::string, const TestKind*> kinds;  // by test name; null: no speed test
  for (const auto& s : cell.samples) {
    if (s.warmup) continue;
    auto [it, fresh] = kinds.try_emplace(s.test, nullptr);
    if (fresh) {
      auto t = ParseTestNameIn(table, s.test);
      if (t && t->name == s.test) it->second = KindOf(*t, table);
    }
    if (it->second) it->second->derive({s, roof}, out);
  }
}

}  // namespace

Status DeriveSpeed(const TestKindTable& kinds, const metrics::ResultRow& base,
                   const metrics::CellSamples& cell, const store::EnvironmentRecord& env,
                   std::vector<metrics::ResultRow>* rows) {
  SpeedRows out;
  Collect(kinds, cell, env, out);
  for (const auto& [test, n] : out.streams) {
    out.rows.Add(test, "failed_streams", "streams", double(n.failed));
    out.rows.Add(test, "token_count_mismatches", "streams", double(n.mismatched));
    out.rows.Add(test, "streams", "streams", double(n.streams));
  }
  out.rows.AppendRows(base, rows);
  return {};
}

void CompleteSpeed(const TestKindTable& kinds, const metrics::ResultRow& base,
                   const metrics::CellSamples& cell, const store::EnvironmentRecord& env,
                   std::vector<metrics::ResultRow>* rows, size_t first) {
  // The time to write 1000 characters (docs/metrics.md "ms_per_kchar"): each repetition's
  // ms/token of a kind that gives it (tg) times the tokens the cell's model makes of 1000
  // characters of the ppl corpus, so that models with other tokenizers compare on the same text.
  if (const std::optional<double> density = CorpusTokensPerKchar(*rows, first)) {
    const size_t end = rows->size();
    for (size_t i = first; i < end; ++i) {
      const metrics::ResultRow& r = (*rows)[i];
      if (r.metric != "ms_per_token" || !r.na_reason.empty()) continue;
      auto parsed = ParseTestNameIn(kinds, r.test);
      const TestKind* kind = parsed ? KindOf(*parsed, kinds) : nullptr;
      if (kind && kind->per_kchar) {
        metrics::ResultRow k = r;
        k.metric = "ms_per_kchar";
        for (double& v : k.samples) v *= *density;
        k.summary = stats::Summarize(k.samples);
        k.value = k.summary.median;
        rows->push_back(std::move(k));
      }
    }
  }
  // A figure no repetition of a test could give: one n/a row with the reason (where some
  // repetitions gave it, the figure is theirs).
  SpeedRows out;
  Collect(kinds, cell, env, out);
  auto add_na = [&](const std::map<std::string, std::string>& why_by_test, const char* metric,
                    const char* unit) {
    for (const auto& [test, why] : why_by_test) {
      if (out.rows.Has(test, metric)) continue;
      rows->push_back(metrics::NaRow(base, test, metric, unit, why));
    }
  };
  add_na(out.no_energy, "energy_per_token", "J/token");
  add_na(out.no_energy, "power", "W");
  add_na(out.no_bw_util, "bw_util", "fraction");
  add_na(out.no_sustained, "throughput", "t/s");
}

}  // namespace pipette::workload::speed
