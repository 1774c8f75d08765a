#include "pipette/quality/ppl.h"

#include <cmath>

#include "pipette/stats/stats.h"

namespace pipette::quality {

std::vector<PplChunk> PplChunks(int64_t n_tokens, int n_ctx, int max_chunks) {
  std::vector<PplChunk> out;
  if (n_ctx < 4) return out;
  for (int64_t begin = 0; begin + n_ctx <= n_tokens; begin += n_ctx) {
    if (max_chunks > 0 && static_cast<int>(out.size()) >= max_chunks) break;
    out.push_back({begin, n_ctx, n_ctx / 2});
  }
  return out;
}

std::vector<int64_t> ChunkTokens(std::span<const int64_t> corpus, const PplChunk& chunk,
                                 int64_t bos) {
  std::vector<int64_t> out(corpus.begin() + chunk.begin,
                           corpus.begin() + chunk.begin + chunk.n_ctx);
  if (bos >= 0 && !out.empty()) out[0] = bos;
  return out;
}

PplFigure PplFromLogprobs(std::span<const double> logprobs) {
  PplFigure f;
  f.n = static_cast<int64_t>(logprobs.size());
  if (logprobs.empty()) return f;
  std::vector<double> nll(logprobs.size());
  for (size_t i = 0; i < logprobs.size(); ++i) nll[i] = -logprobs[i];
  f.mean_nll = stats::Mean(nll);
  f.ppl = std::exp(f.mean_nll);
  f.std_error = f.ppl * stats::Stddev(nll) / std::sqrt(static_cast<double>(nll.size()));
  return f;
}

std::string_view CorpusText(std::string_view file_text) {
  if (!file_text.empty() && file_text.back() == '\n') file_text.remove_suffix(1);
  return file_text;
}

int64_t CountCodePoints(std::string_view utf8) {
  int64_t n = 0;
  for (unsigned char c : utf8) n += (c & 0xC0) != 0x80;
  return n;
}

double TokensPerKchar(double n_tokens, double n_chars) {
  return n_chars > 0 ? 1000.0 * n_tokens / n_chars : 0;
}

}  // namespace pipette::quality
