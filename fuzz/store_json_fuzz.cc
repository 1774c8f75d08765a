// The store's JSON columns as the reports read them: each sample's `raw` (the worker's response,
// read as store.cc's Stmt::Json reads a column: text that does not parse is null) derived into a
// cell's rows (metrics::DeriveRows, every workload's derivation) and into the time history
// (metrics::BuildHistory, every workload's Timed), and the derived-rows cache
// (metrics::DecodeCellRows). The bytes are the cell's samples, cut at each 0x1E byte; a sample's
// first byte picks its test (bits 0-4), its repetition (5-6) and whether it is a warm-up (7); the
// rest is its column.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/history.h"
#include "pipette/metrics/row_cache.h"
#include "pipette/workload/registry.h"

namespace {

// The tests a cell's samples are of: speed, quality and the cell's own (load, context, memory).
constexpr const char* kTests[] = {
    "load",    "context",     "memory", "pp16",        "tg4",  "ttft@8",
    "e2e@8+4", "sustained20", "ppl",    "ppl_corpus",  "kld",  "kld_ref",
    "mc",      "mc_dataset",  "gen",    "gen_dataset", "chat", "pp512@d128"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  using nlohmann::json;
  pipette::metrics::CellSamples c;
  c.cell.id = 1;
  c.cell.run_id = 1;
  c.cell.status = "ok";
  c.cell.runtime = "llama.cpp";
  int64_t id = 0;
  for (std::string_view rest = bytes; !rest.empty() && id < 64;) {
    const size_t cut = rest.find('\x1e');
    std::string_view sample = rest.substr(0, cut);
    rest.remove_prefix(cut == std::string_view::npos ? rest.size() : cut + 1);
    if (sample.empty()) continue;
    const auto b = static_cast<unsigned char>(sample[0]);
    sample.remove_prefix(1);
    json raw = json::parse(sample, nullptr, false);
    if (raw.is_discarded()) raw = json();
    c.samples.push_back({++id, 1, kTests[(b & 0x1f) % std::size(kTests)], (b >> 5) & 3,
                         (b & 0x80) != 0, std::move(raw)});
  }
  pipette::store::RunRecord run;
  run.id = 1;
  const auto rows = pipette::metrics::DeriveRows(run, {1, "fp", json::object()}, {c},
                                                 pipette::workload::Derivers());
  (void)rows;
  // The same samples as the history time estimates start from (each workload's Timed).
  std::vector<std::pair<std::string, pipette::store::SampleRecord>> keyed;
  for (const auto& s : c.samples) keyed.emplace_back("model=m", s);
  (void)pipette::metrics::BuildHistory(keyed, pipette::workload::Derivers());
  auto facts = std::make_shared<const pipette::metrics::CellFacts>();
  (void)pipette::metrics::DecodeCellRows(bytes, facts);
  return 0;
}
