// The quality workloads' orchestration through the runner's public entry (RunExperiment), against
// the in-memory FakeWorker (src/pipette/testing/fake_worker.h): what each workload asks the
// worker, in what order; what it stores; the figures derived from the fake's fixed data, computed
// here again from the fake model's formula; a failing request failing only its cell; a resume
// measuring only what is left. Real measurements are tested end to end in tests/e2e.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "pipette/device/local_device.h"
#include "pipette/metrics/derive.h"
#include "pipette/run/resume.h"
#include "pipette/run/runner.h"
#include "pipette/run/runner_testing.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/fake_worker.h"
#include "pipette/util/sha256.h"
#include "pipette/workload/divergence/spec.h"
#include "pipette/workload/gen/spec.h"
#include "pipette/workload/kld/spec.h"
#include "pipette/workload/mc/spec.h"
#include "pipette/workload/ppl/spec.h"
#include "pipette/workload/registry.h"

namespace pipette::run {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;
using testing::FakeModel;
using testing::FakeTokens;
using testing::FakeWorker;
using testing::Logits;
using Ops = std::vector<std::string>;

constexpr double kScaleA = 1.0, kScaleB = 1.5;

// log P(next | token) under the fake model of `scale`, from its logits, done the plain way.
double Lp(double scale, int32_t token, int32_t next) {
  const std::vector<float> l = Logits(scale, token);
  double z = 0;
  for (float x : l) z += std::exp(double(x));
  return std::log(std::exp(double(l[size_t(next)])) / z);
}

// KL(P_a || P_b) of the two fake models' next-token distributions after `token`.
double Kl(int32_t token) {
  double kl = 0;
  for (int32_t v = 0; v < int32_t(testing::kVocab); ++v) {
    const double la = Lp(kScaleA, token, v);
    kl += std::exp(la) * (la - Lp(kScaleB, token, v));
  }
  return kl;
}

// The runner's fixture: two models (a, b), one cell each, no speed tests, a FakeWorker.
class RunnerWorkloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RunnerTestBed bed;
    ASSERT_TRUE(OpenTestBed("runner-workloads", registry_, {}, &bed).ok());
    dir_ = bed.dir;
    store_ = std::move(bed.store);
    env_id_ = bed.env_id;
    ex_ = std::move(bed.ex);
    ex_.repetitions = 1;
    ex_.warmup = 0;
    NewFake();
  }
  void TearDown() override {
    EXPECT_TRUE(fake_->bad_requests().empty()) << fake_->bad_requests()[0];
    store_.reset();
    fs::remove_all(dir_);
  }
  // A fresh fake (a new run's workers): model a says "blue", model b "blur".
  void NewFake() {
    fake_ = std::make_unique<FakeWorker>();
    fake_->SetModel("/m/a.gguf", FakeModel{kScaleA, false, "blue"});
    fake_->SetModel("/m/b.gguf", FakeModel{kScaleB, false, "blur"});
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  Result<RunSummary> Run(const ResumePlan* resume = nullptr) {
    auto cells = plan::Expand(ex_, runtime::Registry(), workload::PlanNeeds());
    EXPECT_TRUE(cells.ok());
    cells_ = *cells;
    RunnerDeps deps;
    deps.workloads = workload::MakeWorkloads;
    deps.runtimes = &runtime::Registry();
    deps.derivers = &workload::Derivers();
    testing::FakeDevice device(fake_.get());  // "local", its workers the fake's
    deps.device = &device;
    deps.store = store_.get();
    deps.resume = resume;
    deps.model_facts = [](const std::string&) {
      return Result<ModelFacts>(ModelFacts{"sha", 1234, {{"quant", "Q4_1"}}});
    };
    return RunExperiment(ex_, cells_, registry_, env_id_, deps);
  }
  std::vector<store::CellRecord> Cells(int64_t run_id) { return *store_->Cells(run_id); }
  std::vector<store::SampleRecord> Samples(int64_t cell_id, const std::string& test) {
    std::vector<store::SampleRecord> out;
    auto all = store_->Samples(cell_id);
    EXPECT_TRUE(all.ok());
    if (!all.ok()) return out;
    for (auto& s : *all) {
      if (s.test == test) out.push_back(s);
    }
    return out;
  }
  std::vector<metrics::ResultRow> Rows(int64_t run_id) {
    std::vector<metrics::CellSamples> cs;
    for (const store::CellRecord& c : Cells(run_id)) cs.push_back({c, *store_->Samples(c.id)});
    return metrics::DeriveRows(*store_->Run(run_id), {0, "fp", json::object()}, cs,
                               workload::Derivers());
  }
  // A figure of the rows, NAN when there is none.
  static double Figure(const std::vector<metrics::ResultRow>& rows, int cell,
                       const std::string& test, const std::string& metric) {
    for (const auto& r : rows) {
      if (r.cell->cell_index == cell && r.test == test && r.metric == metric && r.subset.empty()) {
        return r.value;
      }
    }
    for (const auto& r : rows) {  // kld and divergence rows name their reference as the subset
      if (r.cell->cell_index == cell && r.test == test && r.metric == metric) return r.value;
    }
    return NAN;
  }
  // The requests of `op` that launch `launch` received.
  std::vector<json> Requests(int launch, const std::string& op) const {
    std::vector<json> out;
    for (const auto& c : fake_->calls()) {
      if (c.launch == launch && c.op == op) out.push_back(c.request);
    }
    return out;
  }

  runtime::ParamRegistry registry_ = runtime::ParamRegistry::Default();
  config::Experiment ex_;
  std::vector<plan::Cell> cells_;
  std::unique_ptr<FakeWorker> fake_;
  std::unique_ptr<store::Store> store_;
  fs::path dir_;
  int64_t env_id_ = 0;
};

// 135 bytes: 135 tokens of the fake tokenizer (no BOS), the final newline not tokenized.
const std::string kCorpus =
    "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. "
    "The quick brown fox jumps over the lazy dog. \n";

// --- ppl ---

class RunnerPplTest : public RunnerWorkloadTest {
 protected:
  void SetUp() override {
    RunnerWorkloadTest::SetUp();
    workload::PplSpec p;
    p.corpus = Write("corpus.txt", kCorpus);
    p.n_ctx = 16;
    p.chunks = 3;
    workload::SetPplSpec(&ex_, p);
  }
  // The perplexity of model `scale` over the first `chunks` chunks, from the formula.
  static double ExpectedPpl(double scale, int chunks) {
    const TokenIds t = FakeTokens(kCorpus.substr(0, kCorpus.size() - 1), false);
    double nll = 0;
    int n = 0;
    for (int c = 0; c < chunks; ++c) {
      for (int p = 8; p <= 14; ++p, ++n) nll -= Lp(scale, t[size_t(16 * c + p)], t[16 * c + p + 1]);
    }
    return std::exp(nll / n);
  }
};

TEST_F(RunnerPplTest, TokenizesOnceScoresEachChunkAndThePerplexityIsTheModels) {
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 2);
  EXPECT_EQ(fake_->launches(), 2);
  const Ops cell = {"hello",      "reset_peak_memory",
                    "load_model", "init_context",
                    "tokenize",   "score",
                    "score",      "score",
                    "memory"};
  EXPECT_EQ(fake_->Ops(1), cell);
  EXPECT_EQ(fake_->Ops(2), cell);
  const TokenIds t = FakeTokens(kCorpus.substr(0, kCorpus.size() - 1), false);
  const auto scores = Requests(1, "score");
  for (size_t c = 0; c < scores.size(); ++c) {
    EXPECT_EQ(scores[c]["tokens"],
              json(TokenIds(t.begin() + 16 * long(c), t.begin() + 16 * long(c) + 16)));
    EXPECT_EQ(scores[c]["from"], 8);
    EXPECT_FALSE(scores[c].contains("top_k"));
  }
  const auto cells = Cells(s->run_id);
  EXPECT_EQ(Samples(cells[0].id, "ppl").size(), 3u);
  ASSERT_EQ(Samples(cells[0].id, "ppl_corpus").size(), 1u);
  EXPECT_EQ(Samples(cells[0].id, "ppl_corpus")[0].raw["n_tokens"], 135);
  const auto rows = Rows(s->run_id);
  EXPECT_NEAR(Figure(rows, 0, "ppl", "ppl"), ExpectedPpl(kScaleA, 3), 1e-9);
  EXPECT_NEAR(Figure(rows, 1, "ppl", "ppl"), ExpectedPpl(kScaleB, 3), 1e-9);
  EXPECT_NE(ExpectedPpl(kScaleA, 3), ExpectedPpl(kScaleB, 3));
  EXPECT_DOUBLE_EQ(Figure(rows, 0, "ppl", "tok_per_kchar"), 1000.0);  // one token per byte
}

TEST_F(RunnerPplTest, AConvertedModelsTokensAreCheckedAgainstItsSourcesOnce) {
  // Model b is a conversion of /m/src.gguf, whose tokenizer is the same (no BOS either).
  ex_.models[1].tokenizer_source = "/m/src.gguf";
  ex_.source_tokenizer = "/src/pipette-worker-llama";
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 2);
  // a's worker, b's worker, then the source's (started by b's first tokenize).
  EXPECT_EQ(fake_->launches(), 3);
  EXPECT_EQ(fake_->Ops(3), (Ops{"hello", "load_model", "tokenize"}));
  EXPECT_EQ(Requests(3, "load_model")[0]["path"], "/m/src.gguf");
  EXPECT_EQ(Requests(3, "tokenize")[0], Requests(2, "tokenize")[0]);
  const auto cells = Cells(s->run_id);
  const auto checks = Samples(cells[1].id, "tokenizer_check");
  ASSERT_EQ(checks.size(), 1u);  // the corpus
  EXPECT_EQ(checks[0].raw["n_tokens"], 135);
  EXPECT_EQ(checks[0].raw["agreed"], true);
  EXPECT_TRUE(Samples(cells[0].id, "tokenizer_check").empty());  // no conversion, no check
}

TEST_F(RunnerPplTest, AConvertedTokenizerThatDisagreesFailsItsCellNamingThePosition) {
  fake_->SetModel("/m/src.gguf", FakeModel{kScaleB, /*add_bos=*/true, ""});  // BOS in front
  ex_.models[1].tokenizer_source = "/m/src.gguf";
  ex_.source_tokenizer = "/src/pipette-worker-llama";
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto cells = Cells(s->run_id);
  EXPECT_EQ(cells[0].status, "ok");
  EXPECT_EQ(cells[1].status, "failed");
  EXPECT_EQ(cells[1].error,
            "the model's tokenizer disagrees with that of the file it was converted from "
            "(/m/src.gguf) on the text \"The quick brown fox jumps over the lazy ...\" (135 "
            "bytes), at token 0 of 136: id 86 here, id 1 in the reference: the conversion "
            "changed the tokenizer");
  EXPECT_TRUE(Samples(cells[1].id, "ppl").empty());  // nothing scored with the wrong tokens
}

TEST_F(RunnerPplTest, AFailedScoreFailsOnlyItsCellAndKeepsWhatWasScored) {
  fake_->Fail({"score", 2, false});  // the second chunk of the first cell
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_failed, 1);
  EXPECT_EQ(s->cells_ok, 1);
  const auto cells = Cells(s->run_id);
  EXPECT_EQ(cells[0].status, "failed");
  EXPECT_EQ(cells[0].error, "the fake worker failed 'score', as told");
  EXPECT_EQ(cells[0].stderr_tail, "fake stderr");
  EXPECT_EQ(Samples(cells[0].id, "ppl").size(), 1u);
  EXPECT_EQ(cells[1].status, "ok");
  EXPECT_NEAR(Figure(Rows(s->run_id), 1, "ppl", "ppl"), ExpectedPpl(kScaleB, 3), 1e-9);
  EXPECT_EQ(fake_->Ops(1).back(), "score");  // nothing more asked of the failed cell's worker
}

TEST_F(RunnerPplTest, ABrokenWorkerFailsOnlyItsCell) {
  fake_->Fail({"tokenize", 1, true});
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto cells = Cells(s->run_id);
  EXPECT_EQ(cells[0].status, "failed");
  EXPECT_EQ(cells[0].error, "the fake worker broke during 'tokenize', as told");
  EXPECT_EQ(cells[1].status, "ok");
  EXPECT_EQ(fake_->launches(), 2);
  EXPECT_EQ(Samples(cells[1].id, "ppl").size(), 3u);
}

// --- kld ---

class RunnerKldFakeTest : public RunnerWorkloadTest {
 protected:
  void SetUp() override {
    RunnerWorkloadTest::SetUp();
    workload::KldSpec k;
    k.reference = "a";
    k.corpus = Write("kld.txt", kCorpus);
    k.n_ctx = 16;
    k.chunks = 2;
    k.top_k = 4;
    workload::SetKldSpec(&ex_, k);
    tokens_ = FakeTokens(kCorpus.substr(0, kCorpus.size() - 1), false);
  }
  // The tokens whose next-token distributions chunk c scores.
  std::vector<int32_t> Scored(int c) const {
    return {tokens_.begin() + 16 * c + 8, tokens_.begin() + 16 * c + 15};
  }
  TokenIds tokens_;
};

TEST_F(RunnerKldFakeTest, FullVocabularyStoresThePerPositionKlOfTheTwoModels) {
  ex_.params.push_back({"threads", {"1", "2"}});  // two cells per model
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 4);
  // a's worker, the reference worker (started by the first cell, kept for the run), b's worker.
  EXPECT_EQ(fake_->launches(), 3);
  EXPECT_EQ(fake_->Ops(2), (Ops{"hello", "load_model", "tokenize", "init_context", "score", "score",
                                "init_context", "score", "score", "init_context", "score", "score",
                                "init_context", "score", "score"}));
  for (const json& r : Requests(2, "score")) EXPECT_EQ(r["logits"], true);
  EXPECT_EQ(fake_->frames_read(), 4 * 2 * 2 * 7);  // cells x chunks x workers x positions
  const auto cells = Cells(s->run_id);
  double sum = 0;
  for (int c = 0; c < 2; ++c) {
    const auto kld = Samples(cells[2].id, "kld");
    ASSERT_EQ(kld.size(), 2u);
    const json& kl = kld[size_t(c)].raw["kl"];
    ASSERT_EQ(kl.size(), 7u);
    const std::vector<int32_t> scored = Scored(c);
    for (size_t j = 0; j < 7; ++j) {
      EXPECT_NEAR(kl[j].get<double>(), Kl(scored[j]), 1e-6) << "chunk " << c << " position " << j;
      sum += Kl(scored[j]);
    }
  }
  const auto rows = Rows(s->run_id);
  EXPECT_EQ(Figure(rows, 0, "kld", "kld_max"), 0.0);  // the reference against itself
  EXPECT_EQ(Figure(rows, 1, "kld", "top1_agree"), 1.0);
  EXPECT_NEAR(Figure(rows, 2, "kld", "kld_mean"), sum / 14, 1e-6);
  EXPECT_NEAR(Figure(rows, 3, "kld", "kld_mean"), sum / 14, 1e-6);
}

TEST_F(RunnerKldFakeTest, AReferenceThatBreaksFailsThatCellAndANewOneServesTheNext) {
  fake_->Fail({"frames", 1, true, 2});  // launch 2: the reference worker, at its first frame
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto cells = Cells(s->run_id);
  EXPECT_EQ(cells[0].status, "failed");
  EXPECT_EQ(cells[0].error,
            "the kld reference worker (a) failed: the fake worker broke during its frames, as "
            "told; its standard error ended with: fake stderr");
  EXPECT_EQ(cells[1].status, "ok");
  EXPECT_EQ(fake_->launches(), 4);  // b's worker (3), then a new reference (4)
  // The new reference: started, loaded, the corpus tokenized, a context, both chunks scored.
  EXPECT_EQ(fake_->Ops(4),
            (Ops{"hello", "load_model", "tokenize", "init_context", "score", "score"}));
  EXPECT_EQ(Requests(4, "load_model")[0]["path"], "/m/a.gguf");
  EXPECT_EQ(Samples(cells[1].id, "kld").size(), 2u);
}

TEST_F(RunnerKldFakeTest, AnAbortedFrameStreamFailsTheCellNotTheRun) {
  fake_->Fail({"frames", 3, false, 1});  // the cell's own worker aborts its frames
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto cells = Cells(s->run_id);
  EXPECT_EQ(cells[0].status, "failed");
  EXPECT_NE(cells[0].error.find("aborted its frames"), std::string::npos) << cells[0].error;
  EXPECT_EQ(cells[1].status, "ok");
}

TEST_F(RunnerKldFakeTest, TopKRecordsTheReferenceOnceAndAsksEveryCellForItsIds) {
  workload::MutableKldSpecOf(&ex_)->mode = workload::KldMode::kTopK;
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(fake_->launches(), 2);  // no reference worker
  const auto a = Requests(1, "score"), b = Requests(2, "score");
  ASSERT_EQ(a.size(), 4u);  // the reference's top-k per chunk, then its own ids per chunk
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[0]["top_k"], 4);
  EXPECT_EQ(a[1]["top_k"], 4);
  double sum = 0;
  for (int c = 0; c < 2; ++c) {
    const std::vector<int32_t> scored = Scored(c);
    json ids = json::array();
    for (int32_t t : scored) {  // the reference's 4 most likely ids after t, computed here
      const std::vector<float> l = Logits(kScaleA, t);
      std::vector<int32_t> order(l.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int32_t x, int32_t y) { return l[size_t(x)] > l[size_t(y)]; });
      order.resize(4);
      ids.push_back(order);
      // The KL of the two coarsened distributions: the 4 ids and the rest of the vocabulary.
      double pa_rest = 1, pb_rest = 1;
      for (int32_t v : order) {
        const double la = Lp(kScaleA, t, v), lb = Lp(kScaleB, t, v);
        sum += std::exp(la) * (la - lb);
        pa_rest -= std::exp(la);
        pb_rest -= std::exp(lb);
      }
      sum += pa_rest * std::log(pa_rest / pb_rest);
    }
    EXPECT_EQ(a[size_t(2 + c)]["ids"], ids);
    EXPECT_EQ(b[size_t(c)]["ids"], ids);
  }
  const auto rows = Rows(s->run_id);
  EXPECT_NEAR(Figure(rows, 0, "kld", "kld_max"), 0.0, 1e-12);
  EXPECT_NEAR(Figure(rows, 1, "kld", "kld_mean"), sum / 14, 1e-6);
  EXPECT_GT(Figure(rows, 1, "kld", "ref_tail_mass"), 0.0);
}

// --- mc ---

class RunnerMcTest : public RunnerWorkloadTest {
 protected:
  void SetUp() override {
    RunnerWorkloadTest::SetUp();
    workload::McSpec m;
    m.dataset = Write(
        "mc.jsonl",
        R"({"id": "q1", "question": "Sky?", "choices": ["blue", "red"], "answer": 0, "language": "en", "task_type": "t"})"
        "\n"
        R"({"id": "q2", "question": "Two?", "choices": ["one", "two", "three"], "answer": 1, "language": "en", "task_type": "t"})"
        "\n");
    m.n_items = 2;
    workload::SetMcSpec(&ex_, m);
  }
  // The summed log-probability of `choice`'s tokens after `question`'s prompt.
  static double ChoiceLp(double scale, const std::string& question, const std::string& choice) {
    const std::string prompt = "Question: " + question + "\nAnswer:";
    const TokenIds full = FakeTokens(prompt + " " + choice, false);
    double lp = 0;
    for (size_t p = prompt.size() - 1; p + 1 < full.size(); ++p) {
      lp += Lp(scale, full[p], full[p + 1]);
    }
    return lp;
  }
  // acc and acc_norm over the two items, from the formula.
  static std::pair<double, double> ExpectedAcc(double scale) {
    const std::vector<std::tuple<std::string, std::vector<std::string>, int>> items = {
        {"Sky?", {"blue", "red"}, 0}, {"Two?", {"one", "two", "three"}, 1}};
    double acc = 0, norm = 0;
    for (const auto& [q, choices, answer] : items) {
      int best = 0, best_norm = 0;
      for (int i = 1; i < int(choices.size()); ++i) {
        const auto lp = [&](int k) { return ChoiceLp(scale, q, choices[size_t(k)]); };
        const auto per_byte = [&](int k) { return lp(k) / double(choices[size_t(k)].size()); };
        if (lp(i) > lp(best)) best = i;
        if (per_byte(i) > per_byte(best_norm)) best_norm = i;
      }
      acc += best == answer ? 0.5 : 0;
      norm += best_norm == answer ? 0.5 : 0;
    }
    return {acc, norm};
  }
};

TEST_F(RunnerMcTest, ScoresEachChoiceAfterItsQuestionAndStoresTheSums) {
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 2);
  Ops expected = {"hello", "reset_peak_memory", "load_model", "init_context"};
  // q1: the prompt, then per choice (prompt + choice, score), then the question alone; q2 alike.
  for (int choices : {2, 3}) {
    expected.push_back("tokenize");
    for (int c = 0; c < choices; ++c) expected.insert(expected.end(), {"tokenize", "score"});
    expected.push_back("tokenize");
  }
  expected.push_back("memory");
  EXPECT_EQ(fake_->Ops(1), expected);
  const auto scores = Requests(1, "score");
  ASSERT_EQ(scores.size(), 5u);
  EXPECT_EQ(scores[0]["tokens"], json(FakeTokens("Question: Sky?\nAnswer: blue", false)));
  EXPECT_EQ(scores[0]["from"], std::string("Question: Sky?\nAnswer:").size() - 1);
  const auto cells = Cells(s->run_id);
  const auto mc = Samples(cells[1].id, "mc");
  ASSERT_EQ(mc.size(), 2u);
  // The per-token log-probabilities of the choice are stored; their sum is derived.
  const auto lp = mc[1].raw["choices"][2]["logprob"].get<std::vector<double>>();
  EXPECT_EQ(lp.size(), 6u);
  EXPECT_NEAR(std::accumulate(lp.begin(), lp.end(), 0.0), ChoiceLp(kScaleB, "Two?", "three"), 1e-9);
  EXPECT_EQ(mc[1].raw["choices"][2]["n_tokens"], 6);  // " three"
  // Timed on the worker's clock, from the first choice scored to the last (the estimate's mc).
  EXPECT_GT(mc[1].raw["t_end_ns"].get<int64_t>(), mc[1].raw["t_start_ns"].get<int64_t>());
  const auto rows = Rows(s->run_id);
  for (int c = 0; c < 2; ++c) {
    const auto [acc, norm] = ExpectedAcc(c == 0 ? kScaleA : kScaleB);
    EXPECT_DOUBLE_EQ(Figure(rows, c, "mc", "acc"), acc) << "cell " << c;
    EXPECT_DOUBLE_EQ(Figure(rows, c, "mc", "acc_norm"), norm) << "cell " << c;
  }
}

// --- gen and divergence ---

class RunnerGenTest : public RunnerWorkloadTest {
 protected:
  void SetUp() override {
    RunnerWorkloadTest::SetUp();
    workload::GenSpec g;
    g.dataset = Write(
        "gen.jsonl",
        R"({"id": "g1", "prompt": "Color of the sky?", "max_tokens": 8, "language": "en", "task_type": "t", "checkers": [{"type": "exact", "value": "blue"}]})"
        "\n"
        R"({"id": "g2", "prompt": "Say blue.", "system": "Be brief.", "max_tokens": 3, "language": "en", "task_type": "t", "checkers": [{"type": "max_chars", "value": 3}]})"
        "\n");
    g.n_items = 2;
    g.template_options = {{"enable_thinking", false}};
    workload::SetGenSpec(&ex_, g);
    workload::SetDivergenceSpec(&ex_, {"a"});
  }
};

TEST_F(RunnerGenTest, ChatsEachItemJudgesTheOutputAndComparesWithTheReference) {
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 2);
  EXPECT_EQ(fake_->Ops(2), (Ops{"hello", "reset_peak_memory", "load_model", "init_context", "chat",
                                "tokenize", "chat", "tokenize", "memory"}));
  const auto chats = Requests(2, "chat");
  EXPECT_EQ(chats[0]["messages"],
            json::parse(R"([{"role": "user", "content": "Color of the sky?"}])"));
  EXPECT_EQ(
      chats[1]["messages"],
      json::parse(
          R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say blue."}])"));
  EXPECT_EQ(chats[0]["max_tokens"], 8);
  EXPECT_EQ(chats[1]["max_tokens"], 3);
  EXPECT_EQ(chats[0]["template_options"], (json{{"enable_thinking", false}}));
  const auto cells = Cells(s->run_id);
  const auto gen = Samples(cells[1].id, "gen");
  ASSERT_EQ(gen.size(), 2u);
  EXPECT_EQ(gen[0].raw["text"], "blur");
  EXPECT_EQ(gen[1].raw["text"], "blu");  // cut at max_tokens
  EXPECT_EQ(gen[1].raw["stop"], "max_tokens");
  EXPECT_FALSE(gen[0].raw.contains("template"));  // one copy, hashed, in gen_dataset
  ASSERT_EQ(Samples(cells[1].id, "gen_dataset").size(), 1u);
  EXPECT_EQ(Samples(cells[1].id, "gen_dataset")[0].raw["divergence_reference_cell_id"],
            cells[0].id);
  const auto rows = Rows(s->run_id);
  EXPECT_EQ(Figure(rows, 0, "gen", "task_acc"), 1.0);  // "blue", "blu"
  EXPECT_EQ(Figure(rows, 1, "gen", "task_acc"), 0.5);  // "blur" is not "blue"
  EXPECT_EQ(Figure(rows, 1, "gen", "format_ok"), 1.0);
  EXPECT_EQ(Figure(rows, 0, "divergence", "identical"), 1.0);
  EXPECT_EQ(Figure(rows, 1, "divergence", "identical"), 0.5);         // g2's "blu" is a's
  EXPECT_EQ(Figure(rows, 1, "divergence", "first_diff_index"), 3.0);  // blu[e] / blu[r]
}

TEST_F(RunnerGenTest, ARuntimeWithoutATemplateEngineIsSentThePromptTheRendererMade) {
  ex_.chat_renderer = "/renderer/pipette-worker-llama";
  fake_->LackIn(ex_.runtimes[0].worker, "render_chat");  // the cells' runtime cannot render
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 2);
  // Launch 1: a's worker; 2: the renderer (started by the first item, kept for the run); 3: b's.
  EXPECT_EQ(fake_->launches(), 3);
  EXPECT_EQ(fake_->Ops(2),
            (Ops{"hello", "render_chat", "render_chat", "render_chat", "render_chat"}));
  const auto renders = Requests(2, "render_chat");
  EXPECT_EQ(
      renders[1]["messages"],
      json::parse(
          R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say blue."}])"));
  EXPECT_EQ(renders[1]["template_options"], (json{{"enable_thinking", false}}));
  EXPECT_TRUE(renders[0]["bos_text"].is_string());  // the cell's detokenize of its BOS
  for (int launch : {1, 3}) {
    const auto chats = Requests(launch, "chat");
    ASSERT_EQ(chats.size(), 2u);
    EXPECT_EQ(chats[1]["prompt"], "<|system|>Be brief.\n<|user|>Say blue.\n<|assistant|>");
    EXPECT_FALSE(chats[1].contains("messages"));
    EXPECT_FALSE(chats[1].contains("template_options"));
  }
  const auto cells = Cells(s->run_id);
  const auto info = Samples(cells[1].id, "gen_dataset");
  ASSERT_EQ(info.size(), 1u);
  EXPECT_EQ(info[0].raw["template_rendered_by"], "render_chat");
  EXPECT_EQ(info[0].raw["template_origin"], "model");  // the renderer's answer
  // The same prompt bytes as a runtime that renders them itself (the fake's own template).
  const auto gen = Samples(cells[1].id, "gen");
  EXPECT_EQ(gen[1].raw["prompt_sha256"],
            Sha256Hex("<|system|>Be brief.\n<|user|>Say blue.\n<|assistant|>"));
  EXPECT_EQ(Figure(Rows(s->run_id), 1, "divergence", "identical"), 0.5);
}

TEST_F(RunnerGenTest, AResumeMeasuresOnlyTheFailedCellAgainstTheKeptReference) {
  fake_->Fail({"chat", 1, true, 2});  // b's worker breaks at its first chat
  auto first = Run();
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto before = Cells(first->run_id);
  ASSERT_EQ(before[1].status, "failed");
  ASSERT_TRUE(store_->FinishRun(first->run_id, "interrupted").ok());

  auto rp = PlanResume(cells_, before, /*retry_failed=*/true);
  ASSERT_TRUE(rp.ok()) << rp.error().message;
  rp->run_id = first->run_id;
  ASSERT_TRUE(LoadReferences(*store_, ex_, cells_, workload::Registered(), &*rp).ok());
  EXPECT_EQ(rp->to_run, std::vector<int>{1});
  NewFake();
  auto s = Run(&*rp);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 1);
  EXPECT_EQ(s->cells_kept, 1);
  EXPECT_EQ(fake_->launches(), 1);
  EXPECT_EQ(fake_->Count("load_model"), 1);
  EXPECT_EQ(Requests(1, "load_model")[0]["path"], "/m/b.gguf");
  const auto after = Cells(first->run_id);
  ASSERT_EQ(after.size(), 3u);
  const auto rows = Rows(first->run_id);
  EXPECT_EQ(Figure(rows, 1, "divergence", "identical"), 0.5);  // against the kept cell of a
  EXPECT_EQ(Figure(rows, 0, "gen", "task_acc"), 1.0);
}

}  // namespace
}  // namespace pipette::run
