#include "pipette/workload/speed/speed.h"

#include <gtest/gtest.h>

#include "pipette/config/parse.h"
#include "pipette/worker/channel.h"
#include "pipette/workload/ppl/spec.h"
#include "pipette/workload/registry.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::workload {
namespace {

config::Experiment WithTests(const std::vector<std::string>& names) {
  config::Experiment ex;
  for (const std::string& n : names) ex.tests.push_back(*workload::ParseTestName(n));
  return ex;
}

TEST(Speed, OnePhasePerTestWithItsOps) {
  const auto speed = NewSpeed();
  const auto phases = speed->Phases(WithTests({"pp16", "tg4", "ttft@32"}));
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[0].name, "pp16");
  EXPECT_EQ(phases[0].ops, (std::vector<std::string>{"pp"}));
  EXPECT_EQ(phases[1].ops, (std::vector<std::string>{"tg"}));
  EXPECT_EQ(phases[2].ops, (std::vector<std::string>{"ttft", "tokenize"}));
  EXPECT_TRUE(speed->Phases(config::Experiment{}).empty());
}

TEST(Speed, ItsContextNeedFitsTheLargestTest) {
  const auto tests = WithTests({"pp512", "tg128", "ttft@64"}).tests;
  EXPECT_EQ(TokensNeeded(tests, 0, speed::TestKinds()), 512);
  // At a depth pp and tg both follow its tokens: pp512 after 1000 needs 1512.
  EXPECT_EQ(TokensNeeded(tests, 1000, speed::TestKinds()), 1512);
  EXPECT_EQ(TokensNeeded(WithTests({"tg128", "ttft@64"}).tests, 1000, speed::TestKinds()), 1129);
}

// The context need of an experiment is the most any registered workload needs.
TEST(Speed, TheRegistrysContextNeedIsTheLargestWorkloads) {
  config::Experiment ex = WithTests({"pp64"});
  EXPECT_EQ(ContextNeed(ex, 0), 64);
  PplSpec ppl;
  ppl.n_ctx = 512;
  SetPplSpec(&ex, ppl);
  EXPECT_EQ(ContextNeed(ex, 0), 512);
  EXPECT_EQ(ContextNeed(ex, 1000), 1064);  // pp64 after the depth's 1000 tokens
  ex.tests.push_back(*workload::ParseTestName("tg8"));
  EXPECT_EQ(ContextNeed(ex, 1000), 1064);
  ex.tests = {*workload::ParseTestName("tg8")};
  EXPECT_EQ(ContextNeed(ex, 1000), 1009);
}

using nlohmann::json;

// An endpoint's cell in memory: each tg request answered by `answer` (a reply, or one that says
// `request_failed`, as an endpoint's channel gives when every stream of the request failed).
class EndpointLikeContext : public Context {
 public:
  Result<json, RunError> Ready() override { return json(nullptr); }
  std::optional<env::Sensors> EnergyMark() override { return std::nullopt; }
  json EnergySince(const std::optional<env::Sensors>&, double) override { return nullptr; }
  Visit CurrentVisit() const override { return visit; }
  const config::Experiment& Experiment() const override { return ex; }
  const std::vector<plan::Cell>& Cells() const override { return cells; }
  const runtime::ParamRegistry& Params() const override { return registry; }
  const plan::Cell& Cell() const override { return cell; }
  const store::CellRecord& Record() const override { return rec; }
  const protocol::ModelInfo& Model() const override { return model; }
  const std::string& LoadKey() const override { return load_key; }
  std::optional<int64_t> NBatch() const override { return std::nullopt; }
  Result<json> LoadRequest(const plan::Cell&) const override { return json::object(); }
  json ContextRequest(const plan::Cell&) const override { return json::object(); }
  Result<json, RunError> Call(const json&, worker::WorkerChannel*) override {
    return answer(calls++);
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

  config::Experiment ex = WithTests({"tg2"});
  std::vector<plan::Cell> cells;
  runtime::ParamRegistry registry = runtime::ParamRegistry::Default();
  plan::Cell cell;
  store::CellRecord rec;
  protocol::ModelInfo model = [] {
    protocol::ModelInfo m;
    m.n_vocab = 100;
    m.bos = 1;
    return m;
  }();
  std::string load_key = "a";
  Visit visit;
  int calls = 0;
  std::function<json(int)> answer;
  std::vector<store::SampleRecord> samples;
};

json FailedRequest(int n) {
  return {{"id", n},
          {"ok", true},
          {"request_failed", {{"kind", "server_error"}, {"message", "event 2 is not JSON"}}},
          {"streams", json::array({{{"error", "event 2 is not JSON"}, {"kind", "server_error"}}})}};
}

json Measured(int n) {
  return {{"id", n},
          {"ok", true},
          {"n_gen", 2},
          {"t_start_ns", 10},
          {"token_end_ns", {20, 30}},
          {"tokens", json::array()}};
}

// A test whose every measured request failed measured nothing: the cell fails with the reason
// (its failed requests kept), never an ok cell whose test has no row. One success is enough.
TEST(Speed, ATestWhoseEveryMeasuredRequestFailedFailsTheCell) {
  auto speed = NewSpeed();
  EndpointLikeContext ctx;
  ctx.ex.repetitions = 3;
  ctx.ex.warmup = 1;
  ctx.answer = [](int n) { return n == 0 ? Measured(n) : FailedRequest(n); };  // the warm-up only
  auto st = speed->Run(ctx, 0);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("tg2: every measured request failed (3 of 3): event 2 is "
                                    "not JSON"),
            std::string::npos)
      << st.error().message;
  EXPECT_EQ(ctx.samples.size(), 4u);  // kept: what was measured, the failures included

  EndpointLikeContext one;
  one.ex.repetitions = 3;
  one.ex.warmup = 0;
  one.rec.id = 2;
  one.answer = [](int n) { return n == 1 ? Measured(n) : FailedRequest(n); };
  EXPECT_TRUE(speed->Run(one, 0).ok());
}

// Interleaved, a visit makes one measured request: the cell fails at the last visit when every
// visit's request failed, and not before.
TEST(Speed, InterleavedTheLastVisitFailsTheCellWhenEveryVisitFailed) {
  auto speed = NewSpeed();
  EndpointLikeContext ctx;
  ctx.ex.repetitions = 3;
  ctx.ex.warmup = 0;
  ctx.answer = FailedRequest;
  for (int v = 0; v < 3; ++v) {
    ctx.visit = {v, 3};
    auto st = speed->Run(ctx, 0);
    EXPECT_EQ(st.ok(), v < 2) << v;
  }
  EndpointLikeContext other;
  other.rec.id = 5;
  other.ex.repetitions = 3;
  other.ex.warmup = 0;
  other.answer = [](int n) { return n == 1 ? Measured(n) : FailedRequest(n); };
  for (int v = 0; v < 3; ++v) {
    other.visit = {v, 3};
    EXPECT_TRUE(speed->Run(other, 0).ok()) << v;
  }
}

}  // namespace
}  // namespace pipette::workload
