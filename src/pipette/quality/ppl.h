// Perplexity (docs/metrics.md "ppl"): how a corpus is cut into chunks, and the figure from the
// log-probabilities of the scored tokens. Small pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace pipette::quality {

// As llama-perplexity cuts a corpus: the text is tokenized once (special tokens added, so BOS
// first when the tokenizer adds one) and cut into consecutive chunks of n_ctx tokens. Each chunk
// is decoded from an empty context; when the tokenizer adds BOS, the chunk's first token is
// replaced by BOS (not inserted: the chunk keeps n_ctx tokens). The scored targets are the tokens
// at positions n_ctx/2 + 1 ... n_ctx - 1, each predicted from the logits one position earlier
// (n_ctx - 1 - n_ctx/2 of them: 255 per chunk of 512).
struct PplChunk {
  int64_t begin = 0;  // first token of the chunk in the tokenized corpus
  int n_ctx = 0;      // tokens in the chunk
  int from = 0;       // first position whose next token is scored: n_ctx / 2
};

// Consecutive chunks of n_ctx tokens (a shorter tail is dropped); at most max_chunks (0: all).
std::vector<PplChunk> PplChunks(int64_t n_tokens, int n_ctx, int max_chunks);

// The tokens a chunk decodes: its n_ctx tokens of the corpus, the first replaced by `bos` when
// the tokenizer adds BOS (`bos` >= 0).
std::vector<int64_t> ChunkTokens(std::span<const int64_t> corpus, const PplChunk& chunk,
                                 int64_t bos);

// The text of a corpus file as it is tokenized: without one final newline, as llama.cpp's tools
// read a file given with -f.
std::string_view CorpusText(std::string_view file_text);

// Scored targets per chunk of n_ctx tokens.
inline int ScoredPerChunk(int n_ctx) { return n_ctx - 1 - n_ctx / 2; }

struct PplFigure {
  double ppl = 0;        // exp(mean NLL)
  double std_error = 0;  // of ppl, by the delta method: ppl * stddev(NLL) / sqrt(n)
  double mean_nll = 0;
  int64_t n = 0;  // scored tokens
};

// From the log-probabilities (natural log) of every scored token.
PplFigure PplFromLogprobs(std::span<const double> logprobs);

// Unicode code points in UTF-8 text (continuation bytes are not counted).
int64_t CountCodePoints(std::string_view utf8);

// Tokens per 1000 characters (counts, or their sums over items); 0 without characters.
double TokensPerKchar(double n_tokens, double n_chars);

}  // namespace pipette::quality
