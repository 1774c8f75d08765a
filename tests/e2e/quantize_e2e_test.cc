// End-to-end: quantized variants made by llama.cpp's quantizer, their cache and provenance, the
// --vary quant table, layer sensitivity on a small slice, and the second bundled model.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "fixture.h"
#include "pipette/env/process.h"
#include "pipette/quant/maker.h"
#include "pipette/store/store.h"

namespace pipette_e2e {
namespace {

// The figures of one --vary quant row: "| Q4_0* (name) | 1.2 MiB (0.5x) | ... |".
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  std::getline(ss, cell, '|');
  while (std::getline(ss, cell, '|')) {
    const size_t b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
    out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

double Number(const std::string& s) { return std::stod(s); }

class Quantize : public E2E {
 protected:
  void SetUp() override {
    E2E::SetUp();
    variants_ = dir_ / "variants";
    setenv("PIPETTE_VARIANTS_DIR", variants_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("PIPETTE_VARIANTS_DIR");
    E2E::TearDown();
  }
  fs::path variants_;
};

TEST_F(Quantize, VariantsAreMadeCachedMeasuredAndMarkedAsRequantized) {
  fs::path ex = Write("ex.yaml", R"(quantize:
  base: smollm2-135m-instruct-q4_1
  types: [F16, Q8_0, Q4_K_M, Q4_0]
  imatrix: {types: [Q4_0], chunks: 2, n_ctx: 256}
params: {threads: 2}
tests: [tg8]
repetitions: 1
warmup: 0
quality:
  kld: {reference: 'smollm2-135m-instruct-q4_1:F16', chunks: 2, n_ctx: 256, top_k: 64}
)");
  Output dry = Pipette({"run", ex.string(), "--store", Store(), "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_NE(dry.out.find("variant smollm2-135m-instruct-q4_1:Q4_K_M: to make"), std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find("variants to make before the cells: 5"), std::string::npos) << dry.out;
  EXPECT_FALSE(fs::exists(variants_)) << "a dry run makes nothing";

  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(o.code, 0) << o.err << o.out;
  // Said before anything runs, and in the report.
  EXPECT_NE(o.err.find("is itself quantized (Q4_1): its variants are re-quantizations"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("[quantize 5/5]"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("collecting the importance matrix"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("Q4_K_M*"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("* re-quantized from Q4_1: the base file is already quantized"),
            std::string::npos)
      << o.out;

  // Every variant is in the cache with its provenance, and is a readable GGUF of its type.
  int ggufs = 0;
  for (const auto& e : fs::directory_iterator(variants_)) {
    if (e.path().extension() != ".gguf") continue;
    ++ggufs;
    ASSERT_TRUE(fs::exists(e.path().string() + ".json")) << e.path();
    const json p = json::parse(ReadFile(e.path().string() + ".json"));
    EXPECT_EQ(p["base"]["sha256"],
              "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53");
    EXPECT_TRUE(p["requantized"].get<bool>());
    EXPECT_EQ(p["made"]["runtime"], "llama.cpp");
    EXPECT_EQ(p["file"]["size"].get<uintmax_t>(), fs::file_size(e.path()));
  }
  EXPECT_EQ(ggufs, 5);
  EXPECT_EQ(std::distance(fs::directory_iterator(variants_ / "imatrix"), fs::directory_iterator()),
            1);

  // Provenance is stored with every result.
  const json doc = ReportJson();
  std::map<std::string, json> by_model;
  for (const json& c : doc["cells"]) {
    ASSERT_EQ(c["status"], "ok") << c["error"];
    ASSERT_TRUE(c["model_provenance"].is_object());
    by_model[c["model_provenance"]["label"]] = c["model_provenance"];
  }
  ASSERT_EQ(by_model.size(), 5u);
  EXPECT_EQ(by_model["Q4_0+imatrix"]["imatrix"]["collected"]["n_chunks"], 2);
  EXPECT_EQ(by_model["Q4_K_M"]["type"], "Q4_K_M");
  for (const json& r : doc["results"]) {
    EXPECT_EQ(r["quant_origin"], "re-quantized from Q4_1");
  }

  // The controlled-variable table: as bits fall, the file shrinks and the KLD grows.
  Output vary = Pipette({"report", "--store", Store(), "--vary", "quant"});
  ASSERT_EQ(vary.code, 0) << vary.err;
  std::stringstream lines(vary.out);
  std::vector<std::string> header;
  std::map<std::string, std::vector<std::string>> rows;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("| quant")) header = Cells(line);
    const std::regex row(R"(^\| ([A-Z0-9_+a-z]+)\* \()");
    std::smatch m;
    if (std::regex_search(line, m, row)) rows[m[1]] = Cells(line);
  }
  ASSERT_EQ(rows.size(), 5u) << vary.out;
  const auto col = [&](const std::string& name) {
    auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name << " in " << vary.out;
    return static_cast<size_t>(it - header.begin());
  };
  const size_t size_col = col("file size"), kld_col = col("kld mean (top-k lower bound)");
  auto mib = [&](const std::string& q) { return Number(rows[q][size_col]); };
  auto kld = [&](const std::string& q) { return Number(rows[q][kld_col]); };
  EXPECT_GT(mib("F16"), mib("Q8_0"));
  EXPECT_GT(mib("Q8_0"), mib("Q4_K_M"));
  EXPECT_GT(mib("Q4_K_M"), mib("Q4_0"));
  EXPECT_EQ(kld("F16"), 0.0);  // the reference against itself
  EXPECT_LT(kld("F16"), kld("Q8_0"));
  EXPECT_LT(kld("Q8_0"), kld("Q4_K_M"));
  EXPECT_LT(kld("Q4_K_M"), kld("Q4_0"));
  EXPECT_NE(vary.out.find("* re-quantized from Q4_1"), std::string::npos);

  // A second run takes every variant from the cache.
  Output again =
      Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth", "--only", "quant=Q8_0"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.err.find("[quantize"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("2 variant(s) from the cache"), std::string::npos) << again.err;
}

TEST_F(Quantize, AVariantThatCannotBeMadeFailsItsCellsOnly) {
  // The importance matrix needs a chunk of 256 tokens. This corpus has enough bytes to pass the
  // check made before anything runs (a token covers at least one byte), but only some 60 tokens,
  // which only the model's tokenizer finds out: that one variant cannot be made. The base and
  // the other variant are measured all the same.
  std::string words;
  for (int i = 0; i < 6; ++i) words += "Too short to make an importance matrix from. ";
  ASSERT_GE(words.size(), 255u);
  Write("tiny.txt", words);
  fs::path ex = Write("ex.yaml", R"(models: [smollm2-135m-instruct-q4_1]
quantize:
  base: smollm2-135m-instruct-q4_1
  types: [Q8_0]
  imatrix: {types: [Q4_0], corpus: tiny.txt, n_ctx: 256, chunks: 1}
params: {threads: 2}
tests: [tg4]
repetitions: 1
warmup: 0
)");
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  EXPECT_EQ(o.code, 1) << o.err;  // a cell failed
  const json doc = ReportJson();
  ASSERT_EQ(doc["cells"].size(), 3u);
  int ok = 0;
  for (const json& c : doc["cells"]) {
    if (c["status"] == "ok") {
      ++ok;
    } else {
      EXPECT_NE(c["key"].get<std::string>().find("Q4_0+imatrix"), std::string::npos);
      EXPECT_NE(c["error"].get<std::string>().find("fewer than one chunk of 256"),
                std::string::npos)
          << c["error"];
    }
  }
  EXPECT_EQ(ok, 2);
}

TEST_F(Quantize, PartFilesOfAKilledMakerAreRemovedByTheNextOne) {
  // What a maker killed mid-write leaves (its pid is gone), and one of a maker still running
  // (this test process): only the first goes.
  fs::create_directories(variants_);
  const std::string dead = (variants_ / "x.gguf.999999-1234-0badf00d.part").string();
  const pipette::env::ProcessIdentity self = pipette::env::LinuxProcessTable().Self();
  const std::string alive = pipette::quant::PartName((variants_ / "y.gguf").string(), self);
  for (const auto& p : {dead, alive}) std::ofstream(p) << "partial";
  fs::path ex = Write("ex.yaml", R"(quantize: {base: smollm2-135m-instruct-q4_1, types: [Q8_0]}
params: {threads: 2}
tests: [tg4]
repetitions: 1
warmup: 0
)");
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_NE(o.err.find("removed " + dead + ", left by a maker that is gone"), std::string::npos)
      << o.err;
}

TEST_F(Quantize, ACorruptBaseIsBadInputAndNothingIsMade) {
  const std::string model = ReadFile(kModel);
  Write("broken.gguf", model.substr(0, model.size() / 2));
  fs::path bad = Write("bad.yaml", R"(quantize: {base: broken.gguf, types: [Q8_0]}
tests: [tg4]
)");
  Output b = Pipette({"run", bad.string(), "--store", Store()});
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find("bad.yaml:1:18:"), std::string::npos) << b.err;
  EXPECT_FALSE(fs::exists(Store()));
  EXPECT_FALSE(fs::exists(variants_));
}

TEST_F(Quantize, SensitivityRanksGroupsAndMeasuresItsRecipe) {
  Output o = Pipette({"sensitivity", "smollm2-135m-instruct-q4_1", "--layers", "0-1", "--chunks",
                      "1", "--n-ctx", "256", "--top-k", "32", "--threads", "2", "--max-kld", "1",
                      "--store", Store(), "--no-bandwidth", "-o", (dir_ / "sens.md").string()});
  ASSERT_EQ(o.code, 0) << o.err << o.out;
  EXPECT_NE(o.err.find("% done"), std::string::npos) << "progress with time left";
  EXPECT_EQ(ReadFile(dir_ / "sens.md"), o.out);
  std::map<std::string, std::vector<std::string>> ranked;
  std::stringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) {
    const auto c = Cells(line);
    if (c.size() == 6 && !c[0].empty() && std::isdigit(static_cast<unsigned char>(c[0][0]))) {
      ranked[c[1]] = c;
    }
  }
  for (const char* g : {"layer 0", "layer 1", "attention", "feed-forward", "embeddings"}) {
    ASSERT_TRUE(ranked.count(g)) << g << " in\n" << o.out;
    EXPECT_GT(Number(ranked[g][4]), 0.0) << g << ": a low-bit group moves the distribution";
  }
  EXPECT_EQ(ranked.size(), 5u) << "SmolLM2 ties its output to the embeddings: no output group";
  // With a generous budget every group of the partition (layers 0-1, embeddings) goes low, and
  // the mix is built and measured.
  EXPECT_NE(o.out.find("Groups to q4_0 (3):"), std::string::npos) << o.out;
  const std::regex measured(R"(\| measured \(run \d+\) \| [0-9.]+ MiB \| ([0-9.]+) \|)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(o.out, m, measured)) << o.out;
  EXPECT_GT(Number(m[1]), 0.0);
  EXPECT_NE(o.out.find("Budget met as measured: yes"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("overrides: {"), std::string::npos) << "a recipe one can paste";
}

TEST_F(Quantize, CtrlCStopsSensitivityAndKeepsWhatWasMeasured) {
  const pid_t pid = StartPipette({"sensitivity", "smollm2-135m-instruct-q4_1", "--layers", "0-1",
                                  "--chunks", "1", "--n-ctx", "256", "--top-k", "16", "--threads",
                                  "2", "--max-kld", "1", "--store", Store(), "--no-bandwidth"});
  bool second_cell = false;
  for (int i = 0; i < 1200 && !second_cell; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    second_cell = ReadFile(dir_ / "stderr").find("[cell 2/") != std::string::npos;
  }
  ASSERT_TRUE(second_cell) << ReadFile(dir_ / "stderr");
  ASSERT_EQ(kill(pid, SIGINT), 0);
  EXPECT_EQ(Wait(pid), 130) << ReadFile(dir_ / "stderr");
  EXPECT_NE(ReadFile(dir_ / "stderr").find("interrupted: what was measured is in"),
            std::string::npos);
  auto store = pipette::store::Store::Open(Store());
  ASSERT_TRUE(store.ok());
  auto run = (*store)->Run(1);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, "interrupted");
  auto cells = (*store)->Cells(1);
  ASSERT_TRUE(cells.ok());
  ASSERT_GE(cells->size(), 1u);
  EXPECT_EQ((*cells)[0].status, "ok");       // the reference, measured before the signal, is kept
  EXPECT_EQ(ReadFile(dir_ / "stdout"), "");  // no report from half the groups
}

TEST_F(Quantize, SensitivityNeedsABudget) {
  Output o = Pipette({"sensitivity", "smollm2-135m-instruct-q4_1", "--store", Store()});
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--max-size"), std::string::npos) << o.err;
  Output l = Pipette({"sensitivity", "smollm2-135m-instruct-q4_1", "--low", "q4_k_m", "--max-kld",
                      "1", "--store", Store()});
  EXPECT_EQ(l.code, 2);
  EXPECT_NE(l.err.find("--low: unknown tensor type 'q4_k_m'"), std::string::npos) << l.err;
  Output h = Pipette({"sensitivity", "smollm2-135m-instruct-q4_1", "--high", "F16", "--max-kld",
                      "1", "--store", Store()});
  EXPECT_EQ(h.code, 2);
  EXPECT_NE(h.err.find("--high F16: the rest must stay one quantized type"), std::string::npos)
      << h.err;
  Output c = Pipette({"sensitivity", "smollm2-135m-instruct-q4_1", "--corpus", "nope.txt",
                      "--max-kld", "1", "--store", Store()});
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.err.find("not found: '"), std::string::npos) << c.err;
  // Layers the model does not have would leave them out of the recipe without a word.
  Output layers = Pipette({"sensitivity", "smollm2-135m-instruct-q4_1", "--layers", "40-50",
                           "--max-kld", "1", "--store", Store()});
  EXPECT_EQ(layers.code, 2);
  EXPECT_NE(layers.err.find("--layers 40-50: smollm2-135m-instruct-q4_1 has 30 layers (0-29), "
                            "so there are no layers 40-50"),
            std::string::npos)
      << layers.err;
  Output some = Pipette({"sensitivity", "smollm2-135m-instruct-q4_1", "--layers", "28-30",
                         "--max-kld", "1", "--store", Store()});
  EXPECT_EQ(some.code, 2);
  EXPECT_NE(some.err.find("so there is no layer 30"), std::string::npos) << some.err;
  EXPECT_FALSE(fs::exists(Store()));
}

TEST_F(E2E, Gemma3RunsAsASecondArchitecture) {
  fs::path ex = Write("ex.yaml", R"(models: [gemma3-270m-q4_k_m]
params: {threads: 2}
tests: [pp32, tg8]
repetitions: 1
warmup: 0
)");
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(o.code, 0) << o.err;
  const json doc = ReportJson();
  ASSERT_EQ(doc["cells"].size(), 1u);
  EXPECT_EQ(doc["cells"][0]["status"], "ok");
  const json* tg = Find(doc["results"], 1, "tg8", "throughput");
  ASSERT_TRUE(tg);
  EXPECT_GT((*tg)["value"].get<double>(), 0.0);
  EXPECT_EQ((*tg)["quant"], "Q4_K_M");
  EXPECT_EQ((*tg)["model_sha256"],
            "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818");
}

}  // namespace
}  // namespace pipette_e2e
