// The ppl workload against a FAKE context: requests answered in memory, samples collected, so
// what it asks and what it stores are checked without a worker (the real model: tests/e2e).
#include "pipette/workload/ppl/ppl.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pipette/workload/ppl/spec.h"

namespace pipette::workload {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class FakeContext : public Context {
 public:
  Result<json, RunError> Ready() override { return json(nullptr); }
  std::optional<env::Sensors> EnergyMark() override { return std::nullopt; }
  json EnergySince(const std::optional<env::Sensors>&, double) override { return nullptr; }

 public:
  const config::Experiment& Experiment() const override { return ex; }
  const std::vector<plan::Cell>& Cells() const override { return cells; }
  const runtime::ParamRegistry& Params() const override { return registry; }
  const plan::Cell& Cell() const override { return cell; }
  const store::CellRecord& Record() const override { return rec; }
  const protocol::ModelInfo& Model() const override { return model; }
  const std::string& LoadKey() const override { return load_key; }
  std::optional<int64_t> NBatch() const override { return 8; }
  Result<json> LoadRequest(const plan::Cell&) const override { return json::object(); }
  json ContextRequest(const plan::Cell&) const override { return json::object(); }
  Result<json, RunError> Call(const json& request, worker::WorkerChannel*) override {
    requests.push_back(request);
    const std::string op = request["op"];
    if (op == fail_op) return FromCall(worker::BrokenCall(op, "the worker died"));
    if (op == "tokenize") {
      std::vector<int64_t> t;  // one token per byte
      for (unsigned char ch : request["text"].get<std::string>()) t.push_back(2 + ch % 90);
      return json{{"id", 1}, {"ok", true}, {"tokens", t}};
    }
    const int64_t n = int64_t(request["tokens"].size()), from = request["from"];
    return json{{"id", 1},
                {"ok", true},
                {"n_tokens", n},
                {"from", from},
                {"t_start_ns", 10},
                {"t_end_ns", 20},
                {"logprob", std::vector<double>(size_t(n - 1 - from), -1.0)}};
  }
  worker::WorkerChannel& Channel() override { std::abort(); }
  bool Serves(std::string_view) const override { return true; }
  Result<worker::WorkerChannel*, RunError> TokenizerReference() override {
    return static_cast<worker::WorkerChannel*>(nullptr);
  }
  device::Device& Device() override { std::abort(); }
  std::chrono::milliseconds Timeout() const override { return std::chrono::milliseconds(1000); }
  RunStatus Keep(const std::string& test, int rep, bool warmup, json raw) override {
    samples.push_back({0, rec.id, test, rep, warmup, std::move(raw)});
    return {};
  }
  bool Stopped() const override { return false; }
  void Done(const std::string&, double, double) override {}
  void Step(const std::string&) override {}

  config::Experiment ex;
  std::vector<plan::Cell> cells;
  runtime::ParamRegistry registry = runtime::ParamRegistry::Default();
  plan::Cell cell;
  store::CellRecord rec;
  protocol::ModelInfo model = [] {
    protocol::ModelInfo m;
    m.n_vocab = 100;
    m.bos = 1;
    m.add_bos = true;
    return m;
  }();
  std::string load_key = "a";
  std::string fail_op;
  std::vector<json> requests;
  std::vector<store::SampleRecord> samples;
};

class PplTest : public ::testing::Test {
 protected:
  void SetUp() override {
    corpus_ = fs::temp_directory_path() / ("pipette-ppl-test-" + std::to_string(::getpid()));
    std::ofstream(corpus_) << std::string(40, 'x') << "\n";  // 40 tokens: the newline is not read
    SetPplSpec(&ctx_.ex, PplSpec{corpus_.string(), 16, 0, 1});
  }
  void TearDown() override { fs::remove(corpus_); }
  fs::path corpus_;
  FakeContext ctx_;
};

TEST_F(PplTest, ScoresEachChunksSecondHalfAndStoresTheCorpusAndEveryChunk) {
  auto ppl = NewPpl();
  ASSERT_EQ(ppl->Phases(ctx_.ex).size(), 1u);
  EXPECT_EQ(ppl->ContextNeed(ctx_.ex, 0), 16);
  ASSERT_TRUE(ppl->Run(ctx_, 0).ok());
  ASSERT_EQ(ctx_.samples.size(), 3u);  // the corpus, two chunks of 16 (the 8-token tail dropped)
  EXPECT_EQ(ctx_.samples[0].test, "ppl_corpus");
  EXPECT_EQ(ctx_.samples[0].raw["n_tokens"], 40);
  EXPECT_EQ(ctx_.samples[0].raw["n_chunks"], 2);
  EXPECT_EQ(ctx_.samples[2].test, "ppl");
  EXPECT_EQ(ctx_.samples[2].rep, 1);
  EXPECT_EQ(ctx_.samples[2].raw["request"],
            (json{{"chunk", 1}, {"begin", 16}, {"n_ctx", 16}, {"from", 8}, {"bos_first", true}}));
  EXPECT_FALSE(ctx_.samples[2].raw.contains("id"));  // the envelope is not stored
  ASSERT_EQ(ctx_.requests.size(), 3u);               // tokenize, then one score per chunk
  const json& score = ctx_.requests[2];
  EXPECT_EQ(score["op"], "score");
  EXPECT_EQ(score["from"], 8);
  EXPECT_EQ(score["n_batch"], 8);
  EXPECT_EQ(score["tokens"].size(), 16u);
  EXPECT_EQ(score["tokens"][0], 1);  // the chunk's first token replaced by BOS
  // The corpus is tokenized once per model load.
  ASSERT_TRUE(ppl->Run(ctx_, 0).ok());
  EXPECT_EQ(ctx_.requests.size(), 5u);
}

TEST_F(PplTest, ABrokenWorkerEndsThePhaseSayingSo) {
  ctx_.fail_op = "score";
  auto st = NewPpl()->Run(ctx_, 0);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "the worker died");
  EXPECT_TRUE(st.error().worker_broken);
}

TEST_F(PplTest, NotAskedForNotRun) {
  ctx_.ex.quality.Erase("ppl");
  auto ppl = NewPpl();
  EXPECT_TRUE(ppl->Phases(ctx_.ex).empty());
  EXPECT_EQ(ppl->ContextNeed(ctx_.ex, 0), 0);
}

}  // namespace
}  // namespace pipette::workload
