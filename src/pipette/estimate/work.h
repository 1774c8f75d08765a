// How much work a quality workload plans for a cell, counted before it runs: the chunks of a
// corpus, the items of a dataset (workload::PlannedWork sums a plan's work).
#pragma once

#include <cstdint>
#include <string>

namespace pipette::estimate {

// Chunks a corpus workload will score: at most `chunks` (0: all), guessing 4 bytes per token;
// `chunks` itself when the corpus size is unknown (0).
int64_t GuessChunks(int64_t corpus_bytes, int n_ctx, int chunks);
// GuessChunks for the corpus file at `path` (its size unknown when it cannot be read).
int64_t CorpusChunks(const std::string& path, int n_ctx, int chunks);
// Items a dataset workload runs: `limit` of `n_items` (0: all).
int64_t Items(int64_t limit, int64_t n_items);

}  // namespace pipette::estimate
