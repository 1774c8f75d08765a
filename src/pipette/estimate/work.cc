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

int64_t CorpusChunks(const std::string& path, int n_ctx, int chunks) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return GuessChunks(ec ? 0 : static_cast<int64_t>(n), n_ctx, chunks);
}

int64_t Items(int64_t limit, int64_t n_items) {
  return limit > 0 ? std::min<int64_t>(limit, n_items) : n_items;
}

}  // namespace pipette::estimate
