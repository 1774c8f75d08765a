// Pipette's perplexity equals llama-perplexity's (the tool built from the same pinned llama.cpp
// source) on the bundled models, at the same context, batch, threads, chunks and flash-attention
// setting, and at each tool's defaults (nothing set but the context and the chunks): the same
// chunks, the same BOS handling, the same scored positions.
#include <fmt/format.h>

#include <iostream>

#include "fixture.h"

namespace pipette_e2e {
namespace {

// "Final estimate: PPL = 42.6363 +/- 1.23456" in llama-perplexity's log.
double LlamaPerplexityFinal(const std::string& log) {
  std::smatch m;
  static const std::regex kFinal(R"(Final estimate: PPL = ([0-9.]+) \+/- ([0-9.]+))");
  if (!std::regex_search(log, m, kFinal)) return -1;
  return std::stod(m[1].str());
}

struct Case {
  std::string model;  // Pipette's name for the bundled model
  std::string file;
  std::string fa;       // Pipette's flash_attn value; empty: nothing set on either side
  std::string fa_tool;  // llama-perplexity's -fa value
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.model << (c.fa.empty() ? " defaults" : " fa=" + c.fa_tool);
}

class PplAgreement : public E2E, public ::testing::WithParamInterface<Case> {};

TEST_P(PplAgreement, PerplexityEqualsLlamaPerplexity) {
  const Case& c = GetParam();
  ASSERT_TRUE(fs::exists(c.file)) << "run scripts/setup.sh first: " << c.file;
  const std::string tool = kLlamaTools + "/llama-perplexity";
  ASSERT_TRUE(fs::exists(tool)) << tool;
  const std::string corpus = kSource + "/datasets/ppl/devils-dictionary.txt";
  const int chunks = 2, n_ctx = 512, threads = 2;
  const bool defaults = c.fa.empty();
  const std::string params = defaults
                                 ? ""
                                 : fmt::format(
                                       "params:\n  threads: {}\n  n_batch: {}\n  n_ubatch: {}\n"
                                       "  flash_attn: {}\n",
                                       threads, n_ctx, n_ctx, c.fa);
  fs::path ex = Write("ex.yaml", fmt::format("models: [{}]\n{}quality:\n  ppl: {{n_ctx: {}, "
                                             "chunks: {}}}\n",
                                             c.model, params, n_ctx, chunks));
  Output run = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(run.code, 0) << run.err;
  const json doc = ReportJson();
  const json* r = Find(doc["results"], 1, "ppl", "ppl");
  ASSERT_NE(r, nullptr);
  const double pipette = (*r)["value"].get<double>();

  const std::string n = std::to_string(n_ctx);
  // At the defaults llama-perplexity batches 2048 tokens (so both chunks at once, as two
  // sequences) and Pipette one chunk per batch: the figures still agree.
  std::vector<std::string> argv = {
      tool, "-m", c.file, "-f", corpus, "-c", n, "--chunks", std::to_string(chunks), "--no-warmup"};
  if (!defaults) {
    argv.insert(argv.end(), {"-b", n, "-ub", n, "-t", std::to_string(threads), "-fa", c.fa_tool});
  }
  Output ref = Program(argv);
  ASSERT_EQ(ref.code, 0) << ref.out;
  const double llama = LlamaPerplexityFinal(ref.out);
  ASSERT_GT(llama, 0) << ref.out;
  std::cout << "ppl: Pipette " << pipette << ", llama-perplexity " << llama << "\n";
  // llama-perplexity prints 4 decimals; 1e-4 relative is far wider than that rounding.
  EXPECT_NEAR(pipette / llama, 1.0, 1e-4)
      << "Pipette " << pipette << ", llama-perplexity " << llama << "\n"
      << ref.out;
  EXPECT_EQ((*r)["samples"].size(), static_cast<size_t>(chunks));
}

INSTANTIATE_TEST_SUITE_P(BundledModels, PplAgreement,
                         ::testing::Values(Case{"smollm2-135m-instruct-q4_1", kModel, "false",
                                                "off"},
                                           Case{"smollm2-135m-instruct-q4_1", kModel, "true", "on"},
                                           Case{"gemma3-270m-q4_k_m", kGemmaModel, "false", "off"},
                                           Case{"smollm2-135m-instruct-q4_1", kModel, "", ""},
                                           Case{"gemma3-270m-q4_k_m", kGemmaModel, "", ""}),
                         [](const ::testing::TestParamInfo<Case>& p) {
                           return p.param.model.substr(0, p.param.model.find('-')) +
                                  (p.param.fa.empty() ? "_defaults" : "_fa_" + p.param.fa_tool);
                         });

}  // namespace
}  // namespace pipette_e2e
