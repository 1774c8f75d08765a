#include "pipette/estimate/work.h"

#include <algorithm>
#include <filesystem>
#include <string>

namespace pipette::estimate {

int64_t GuessChunks(int64_t corpus_bytes, int n_ctx, int chunks) {
  if (corpus_bytes <= 0 || n_ctx <= 0) return chunks;  // size unknown: what was asked
  const int64_t guess = corpus_bytes / 4 / n_ctx;
  return chunks > 0 ? std::min<int64_t>(chunks, std::max<int64_t>(guess, 1)) : guess;
}

namespace {

int64_t FileBytes(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

const char* KindName(config::TestKind k) {
  switch (k) {
    case config::TestKind::kPP:
      return "pp";
    case config::TestKind::kTG:
      return "tg";
    case config::TestKind::kTTFT:
      return "ttft";
  }
  return "?";
}

int64_t Items(int64_t limit, int64_t n_items) {
  return limit > 0 ? std::min<int64_t>(limit, n_items) : n_items;
}

}  // namespace

std::vector<Work> PlannedWork(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                              const config::ParamRegistry& registry,
                              const std::function<bool(const plan::Cell&)>& include) {
  std::vector<Work> work;
  const double requests = ex.warmup + ex.repetitions;
  const int64_t ppl_chunks =
      ex.ppl ? GuessChunks(FileBytes(ex.ppl->corpus), ex.ppl->n_ctx, ex.ppl->chunks) : 0;
  const int64_t kld_chunks =
      ex.kld ? GuessChunks(FileBytes(ex.kld->corpus), ex.kld->n_ctx, ex.kld->chunks) : 0;
  std::string last_load;
  for (const plan::Cell& c : cells) {
    if (include && !include(c)) continue;
    const std::string key = c.Key();
    const std::string load = c.LoadKey(registry);
    if (load != last_load) work.push_back({key, "load", "load", 1, 1});
    last_load = load;
    for (const config::TestSpec& t : ex.tests) {
      work.push_back({key, t.name, KindName(t.kind), requests, double(t.n)});
    }
    if (ex.ppl) work.push_back({key, "ppl", "ppl", double(ppl_chunks), double(ex.ppl->n_ctx)});
    if (ex.kld) {
      if (c.model.name == ex.kld->reference) {
        work.push_back({key, "kld_ref", "kld", double(kld_chunks), double(ex.kld->n_ctx)});
      }
      work.push_back({key, "kld", "kld", double(kld_chunks), double(ex.kld->n_ctx)});
    }
    if (ex.gen) work.push_back({key, "gen", "gen", double(Items(ex.gen->limit, ex.gen->n_items))});
    if (ex.mc) work.push_back({key, "mc", "mc", double(Items(ex.mc->limit, ex.mc->n_items))});
  }
  return work;
}

Estimate EstimateRun(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                     const config::ParamRegistry& registry, const History& history) {
  Estimator e(history);
  for (const Work& w : PlannedWork(ex, cells, registry)) e.Plan(w);
  return e.FromHistory();
}

}  // namespace pipette::estimate
