// End-to-end: Pipette's full-vocabulary KL divergence agrees with llama.cpp's own
// `llama-perplexity --kl-divergence` on the same chunks, positions and runtime settings, for a
// SmolLM2 pair (Q8_0 reference, Q4_0; both re-quantized from the bundled Q4_1) and a Gemma 3
// pair (the bundled Q4_K_M as the reference, a Q4_0 re-quantized from it).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include "fixture.h"
#include "pipette/store/store.h"

namespace pipette_e2e {
namespace {

const fs::path kPerplexity = fs::path(kLlamaTools) / "llama-perplexity";
const std::string kCorpus = kSource + "/datasets/ppl/devils-dictionary.txt";

// The figures llama-perplexity prints at the end of a --kl-divergence run, as fractions.
std::map<std::string, double> ParseLlamaKld(const std::string& text) {
  const std::pair<const char*, const char*> wanted[] = {
      {"mean", R"(Mean\s+KLD:\s+([-0-9.e+]+))"},
      {"median", R"(Median\s+KLD:\s+([-0-9.e+]+))"},
      {"p99", R"(99\.0%\s+KLD:\s+([-0-9.e+]+))"},
      {"max", R"(Maximum KLD:\s+([-0-9.e+]+))"},
      {"top1", R"(Same top p:\s+([-0-9.e+]+))"},
      {"rms_dp", R"(RMS Δp\s*:\s+([-0-9.e+]+))"},
      {"ppl_ratio", R"(Mean PPL\(Q\)/PPL\(base\)\s*:\s+([-0-9.e+]+))"},
  };
  std::map<std::string, double> out;
  for (const auto& [name, re] : wanted) {
    std::smatch m;
    if (std::regex_search(text, m, std::regex(re))) out[name] = std::stod(m[1]);
  }
  if (out.count("top1")) out["top1"] /= 100;  // printed in percent
  if (out.count("rms_dp")) out["rms_dp"] /= 100;
  return out;
}

class Kld : public E2E {
 protected:
  void SetUp() override {
    E2E::SetUp();
    ASSERT_TRUE(fs::exists(kPerplexity)) << "build llama.cpp's tools first: " << kPerplexity;
    variants_ = dir_ / "variants";
    setenv("PIPETTE_VARIANTS_DIR", variants_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("PIPETTE_VARIANTS_DIR");
    E2E::TearDown();
  }

  // The variant file Pipette made with this label (its provenance sidecar names it).
  fs::path Variant(const std::string& label) {
    for (const auto& e : fs::directory_iterator(variants_)) {
      if (e.path().extension() != ".gguf") continue;
      const json p = json::parse(ReadFile(e.path().string() + ".json"));
      if (p.value("label", "") == label) return e.path();
    }
    ADD_FAILURE() << "no variant " << label << " in " << variants_;
    return {};
  }

  // llama-perplexity on the reference (writing the base file), then on the test model.
  std::map<std::string, double> LlamaKld(const fs::path& ref, const fs::path& test) {
    const fs::path base = dir_ / "kld-base.bin";
    const std::vector<std::string> common = {"-f",  kCorpus,    "-c", "256", "-b", "256", "-ub",
                                             "256", "--chunks", "2",  "-t",  "2",  "-fa", "off"};
    std::vector<std::string> a = {kPerplexity.string(), "-m", ref.string(), "--kl-divergence-base",
                                  base.string()};
    a.insert(a.end(), common.begin(), common.end());
    const Output made = Program(a);
    EXPECT_EQ(made.code, 0) << made.out;
    std::vector<std::string> b = {kPerplexity.string(),   "-m",          test.string(),
                                  "--kl-divergence-base", base.string(), "--kl-divergence"};
    b.insert(b.end(), common.begin(), common.end());
    const Output compared = Program(b);
    EXPECT_EQ(compared.code, 0) << compared.out;
    auto figures = ParseLlamaKld(compared.out);
    EXPECT_EQ(figures.size(), 7u) << compared.out;
    fs::remove(base);
    return figures;
  }

  // llama-perplexity's PPL ratio rebuilt from the per-position facts Pipette stored for a cell:
  // its base file keeps each reference log-probability no lower than the argmax's − 16, so a
  // next token rarer than that counts as if it had that probability. Sets how many did, and
  // the exact ratio from the same facts (no clipping).
  double ClippedPplRatio(int cell, int* clipped, double* exact) {
    auto st = pipette::store::Store::Open(Store());
    EXPECT_TRUE(st.ok());
    auto cells = (*st)->Cells(1);
    EXPECT_TRUE(cells.ok());
    double nll = 0, nll_base = 0, nll_exact_base = 0;
    int64_t n = 0;
    *clipped = 0;
    *exact = 0;
    auto samples = (*st)->Samples((*cells)[size_t(cell - 1)].id);
    EXPECT_TRUE(samples.ok());
    if (!samples.ok()) return 0;
    for (const auto& s : *samples) {
      if (s.test != "kld") continue;
      for (size_t j = 0; j < s.raw["kl"].size(); ++j) {
        const double lp = s.raw["ref_logprob"][j],
                     floor = s.raw["ref_max_logprob"][j].get<double>() - 16;
        *clipped += lp < floor;
        nll -= s.raw["logprob"][j].get<double>();
        nll_base -= std::max(lp, floor);
        nll_exact_base -= lp;
        ++n;
      }
    }
    if (n > 0) *exact = std::exp((nll - nll_exact_base) / double(n));
    return n > 0 ? std::exp((nll - nll_base) / double(n)) : 0;
  }

  // Pipette's figures of the test model's cell against llama-perplexity's: the mean, median,
  // top-1 agreement, RMS Δp and PPL ratio within 0.5%, p99 and max within 2% (docs/metrics.md
  // says what differs). The reference's own cell has KLD exactly 0.
  void Compare(const json& doc, int ref_cell, int test_cell,
               const std::map<std::string, double>& llama) {
    for (const char* m : {"kld_mean", "kld_max"}) {
      const json* r = Find(doc["results"], ref_cell, "kld", m);
      ASSERT_NE(r, nullptr) << m;
      EXPECT_EQ((*r)["value"].get<double>(), 0.0) << m;
    }
    const json* self_top1 = Find(doc["results"], ref_cell, "kld", "top1_agree");
    ASSERT_NE(self_top1, nullptr);
    EXPECT_EQ((*self_top1)["value"].get<double>(), 1.0);
    const std::pair<const char*, const char*> names[] = {
        {"kld_mean", "mean"},      {"kld_median", "median"}, {"kld_p99", "p99"},
        {"kld_max", "max"},        {"top1_agree", "top1"},   {"rms_dp", "rms_dp"},
        {"ppl_ratio", "ppl_ratio"}};
    for (const auto& [ours, theirs] : names) {
      const json* r = Find(doc["results"], test_cell, "kld", ours);
      ASSERT_NE(r, nullptr) << ours;
      ASSERT_TRUE(llama.count(theirs)) << theirs;
      const double a = (*r)["value"].get<double>(), b = llama.at(theirs);
      const std::string metric = ours;
      const double tol = metric == "kld_p99" || metric == "kld_max" ? 0.02 : 0.005;
      std::printf("kld %-10s pipette %.6f  llama-perplexity %.6f\n", ours, a, b);
      EXPECT_EQ((*r)["subset"].get<std::string>().rfind("full vocabulary", 0), 0u);
      if (metric == "ppl_ratio") {
        // Where the reference found a next token rarer than its argmax's − 16, llama-perplexity
        // counts it as that probable (docs/metrics.md): compare like with like, and check that
        // Pipette's exact ratio differs only in that direction.
        int clipped = 0;
        double exact = 0;
        const double like_llama = ClippedPplRatio(test_cell, &clipped, &exact);
        std::printf("kld ppl_ratio with llama-perplexity's clipping (%d positions): %.6f\n",
                    clipped, like_llama);
        EXPECT_NEAR(like_llama, b, tol * std::abs(b)) << clipped << " clipped positions";
        // Pipette's figure is the exact ratio of its stored per-position facts.
        EXPECT_NEAR(a, exact, 1e-9 * exact);
        if (clipped > 0) {
          EXPECT_LT(a, like_llama);
          continue;
        }
      }
      EXPECT_NEAR(a, b, tol * std::abs(b))
          << ours << ": pipette " << a << ", llama-perplexity " << b;
    }
  }

  // Runs the experiment and returns its JSON report (two cells, both ok, or a failure).
  json Measure(const fs::path& ex) {
    Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
    EXPECT_EQ(o.code, 0) << o.err << o.out;
    const json doc = ReportJson();
    EXPECT_EQ(doc["cells"].size(), 2u);
    for (const json& c : doc["cells"]) EXPECT_EQ(c["status"], "ok") << c["error"];
    return doc;
  }

  fs::path variants_;
};

// One experiment file: the variants of `base`, the reference and test models, the same context
// and threads as the llama-perplexity runs, flash attention off explicitly.
std::string Experiment(const std::string& base, const std::string& types, const std::string& models,
                       const std::string& reference) {
  return "quantize:\n  base: " + base + "\n  types: [" + types + "]\n" + models +
         "params: {threads: 2, n_ctx: 256, n_batch: 256, n_ubatch: 256, flash_attn: false}\n"
         "quality:\n  kld: {reference: '" +
         reference + "', chunks: 2, n_ctx: 256}\n";
}

TEST_F(Kld, SmolLM2AgreesWithLlamaPerplexity) {
  fs::path ex = Write("ex.yaml", Experiment("smollm2-135m-instruct-q4_1", "Q8_0, Q4_0", "",
                                            "smollm2-135m-instruct-q4_1:Q8_0"));
  const json doc = Measure(ex);
  Compare(doc, 1, 2, LlamaKld(Variant("Q8_0"), Variant("Q4_0")));
}

TEST_F(Kld, Gemma3AgreesWithLlamaPerplexity) {
  const std::string gemma = kSource + "/models/gemma-3-270m-q4_k_m.gguf";
  ASSERT_TRUE(fs::exists(gemma)) << "run scripts/setup.sh first: " << gemma;
  fs::path ex =
      Write("ex.yaml", Experiment("gemma3-270m-q4_k_m", "Q4_0", "models: [gemma3-270m-q4_k_m]\n",
                                  "gemma3-270m-q4_k_m"));
  const json doc = Measure(ex);
  Compare(doc, 1, 2, LlamaKld(gemma, Variant("Q4_0")));
}

}  // namespace
}  // namespace pipette_e2e
