#include "pipette/plan/estimate.h"

#include <algorithm>
#include <filesystem>

namespace pipette::plan {

int64_t GuessChunks(int64_t corpus_bytes, int n_ctx, int chunks) {
  if (corpus_bytes <= 0 || n_ctx <= 0) return chunks;  // size unknown: what was asked
  const int64_t guess = corpus_bytes / 4 / n_ctx;
  return chunks > 0 ? std::min<int64_t>(chunks, std::max<int64_t>(guess, 1)) : guess;
}

namespace {

// Seconds for `n` requests of `test` in cell `c` of `units` each: exact history first, then the
// per-unit rate of `kind`.
bool Add(const History& h, const Cell& c, const std::string& test, const std::string& kind,
         double n, double units, Estimate* e) {
  if (n <= 0) return true;
  auto exact = h.seconds_per_request.find({c.Key(), test});
  if (exact != h.seconds_per_request.end()) {
    e->seconds += exact->second * n;
    ++e->covered;
    return true;
  }
  auto rate = h.seconds_per_token.find(kind);
  if (rate == h.seconds_per_token.end()) {
    ++e->uncovered;
    return false;
  }
  e->seconds += rate->second * units * n;
  ++e->covered;
  return true;
}

int64_t FileBytes(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

}  // namespace

Estimate EstimateRun(const config::Experiment& ex, const std::vector<Cell>& cells,
                     const History& history) {
  Estimate e;
  const double requests = ex.warmup + ex.repetitions;
  for (const Cell& c : cells) {
    for (const config::TestSpec& t : ex.tests) {
      auto exact = history.seconds_per_request.find({c.Key(), t.name});
      if (exact != history.seconds_per_request.end()) {
        e.seconds += exact->second * requests;
        ++e.covered;
        continue;
      }
      const char* kind = t.kind == config::TestKind::kPP   ? "pp"
                         : t.kind == config::TestKind::kTG ? "tg"
                                                           : "ttft";
      auto rate = history.seconds_per_token.find(kind);
      if (rate == history.seconds_per_token.end()) {
        ++e.uncovered;
        continue;
      }
      e.seconds += rate->second * t.n * requests;
      ++e.covered;
    }
    if (ex.ppl) {
      const auto n = GuessChunks(FileBytes(ex.ppl->corpus), ex.ppl->n_ctx, ex.ppl->chunks);
      Add(history, c, "ppl", "score", double(n), ex.ppl->n_ctx, &e);
    }
    if (ex.kld) {
      const auto n = GuessChunks(FileBytes(ex.kld->corpus), ex.kld->n_ctx, ex.kld->chunks);
      Add(history, c, "kld", "score", double(n), ex.kld->n_ctx, &e);
      if (c.model.name == ex.kld->reference) {
        Add(history, c, "kld_ref", "score", double(n), ex.kld->n_ctx, &e);
      }
    }
    if (ex.gen) {
      const int64_t items =
          ex.gen->limit > 0 ? std::min<int64_t>(ex.gen->limit, ex.gen->n_items) : ex.gen->n_items;
      Add(history, c, "gen", "gen", double(items), 1, &e);
    }
    if (ex.mc) ++e.uncovered;
  }
  return e;
}

}  // namespace pipette::plan
