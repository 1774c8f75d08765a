// The scheduler with a FAKE worker (testing::FakeWorker: in memory, answering the protocol with
// fixed data and a counter for a clock), so ordering, model reuse, failure handling and storage
// are tested without a runtime. Real measurements are tested end to end in tests/e2e.
#include "pipette/run/runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "pipette/device/local_device.h"
#include "pipette/metrics/derive.h"
#include "pipette/run/runner_testing.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/fake_worker.h"
#include "pipette/workload/kld/spec.h"
#include "pipette/workload/registry.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::run {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // threads swept; the rest as a file that sets nothing else leaves them (runtime defaults).
    RunnerTestBed bed;
    ASSERT_TRUE(OpenTestBed("runner-test", registry_, {{"threads", {"1", "2"}}}, &bed).ok());
    dir_ = bed.dir;
    store_ = std::move(bed.store);
    env_id_ = bed.env_id;
    ex_ = std::move(bed.ex);
    ex_.tests = {*workload::ParseTestName("pp8"), *workload::ParseTestName("tg4")};
    ex_.repetitions = 3;
    ex_.warmup = 1;
    // Model b's logits are model a's scaled, so its KL against a is > 0.
    fake_.SetModel("/m/b.gguf", testing::FakeModel{1.2, false, "fake reply"});
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  Result<RunSummary> Run(const std::atomic<bool>* stop = nullptr,
                         const ResumePlan* resume = nullptr, ProgressSink* progress = nullptr) {
    auto cells = plan::Expand(ex_, runtime::Registry(), workload::PlanNeeds());
    EXPECT_TRUE(cells.ok());
    cells_ = *cells;
    RunnerDeps deps;
    deps.workloads = workload::MakeWorkloads;
    deps.runtimes = &runtime::Registry();
    deps.derivers = &workload::Derivers();
    deps.resume = resume;
    deps.progress = progress;
    deps.controller = {{"pid", 1}, {"host", "fake"}};
    deps.other_pipettes = [this] { return others_; };
    deps.device = &device_;
    deps.store = store_.get();
    deps.conditions = [] { return json{{"load_avg_1", 0.1}}; };
    deps.model_facts = [](const std::string&) {
      return Result<ModelFacts>(ModelFacts{"sha", 1234, {{"quant", "Q4_1"}}});
    };
    deps.stop = stop;
    return RunExperiment(ex_, cells_, registry_, env_id_, deps);
  }
  int Count(const std::string& op) const { return fake_.Count(op); }
  // The requests of `op`, in order.
  std::vector<json> Requests(const std::string& op) const {
    std::vector<json> out;
    for (const auto& c : fake_.calls()) {
      if (c.op == op) out.push_back(c.request);
    }
    return out;
  }

  runtime::ParamRegistry registry_ = runtime::ParamRegistry::Default();
  config::Experiment ex_;
  std::vector<plan::Cell> cells_;
  testing::FakeWorker fake_;
  testing::FakeDevice device_{&fake_};  // "local", its workers the fake's
  std::unique_ptr<store::Store> store_;
  fs::path dir_;
  int64_t env_id_ = 0;
  json others_ = json::array();
};

// Records the phases it is told of.
class PhaseLog : public ProgressSink {
 public:
  void CellStarted(const plan::Cell&, int, int) override {}
  void PhaseStarted(const plan::Cell& c, int, const std::string& phase) override {
    lines.push_back(std::to_string(c.index) + " start " + phase);
  }
  void PhaseFinished(const plan::Cell& c, int, const std::string& phase, double seconds,
                     double fraction, double) override {
    EXPECT_GE(seconds, 0.0);
    EXPECT_GE(fraction, last_fraction);  // never goes back
    last_fraction = fraction;
    lines.push_back(std::to_string(c.index) + " end " + phase);
  }
  void Step(const plan::Cell&, int, const std::string&, double, double) override {}
  void CellFinished(const plan::Cell&, int, const store::CellRecord&) override {}
  std::vector<std::string> lines;
  double last_fraction = 0;
};

TEST_F(RunnerTest, LoadsEachModelOnceAndStoresEverySample) {
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 4);
  EXPECT_EQ(s->cells_failed, 0);
  EXPECT_EQ(fake_.launches(), 2);  // one worker per model: no model's pages count in another's peak
  EXPECT_EQ(Count("load_model"), 2);    // a, b: not once per cell
  EXPECT_EQ(Count("init_context"), 4);  // one context per cell
  EXPECT_EQ(Count("pp"), 4 * (1 + 3));
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 4u);
  EXPECT_EQ((*cells)[1].load_cell_id, (*cells)[0].id);
  EXPECT_EQ((*cells)[2].load_cell_id, (*cells)[2].id);
  EXPECT_EQ((*cells)[0].model_sha256, "sha");
  EXPECT_EQ((*cells)[0].params["threads"], 1);
  EXPECT_EQ((*cells)[1].params["threads"], 2);
  EXPECT_EQ((*cells)[0].runtime_build["system_info"], "FAKE");
  auto samples = store_->Samples((*cells)[0].id);
  ASSERT_TRUE(samples.ok());
  int warm = 0, rec = 0;
  for (const auto& x : *samples) {
    if (x.test != "pp8") continue;
    (x.warmup ? warm : rec)++;
    EXPECT_EQ(x.raw["request"]["n_tokens"], 8);
    EXPECT_FALSE(x.raw.contains("id"));  // the envelope is not stored
  }
  EXPECT_EQ(warm, 1);
  EXPECT_EQ(rec, 3);
  // The same seed gives the same prompt, within the vocabulary.
  const std::vector<json> pp = Requests("pp");
  ASSERT_GE(pp.size(), 2u);
  EXPECT_EQ(pp[0]["tokens"], pp[1]["tokens"]);
  for (const auto& t : pp[0]["tokens"]) EXPECT_TRUE(t >= 0 && t < testing::kVocab);
}

// The model setup is read typed (protocol::LoadModelResponse, InitContextResponse): a reply
// without a field the protocol requires fails the cell as broken protocol, naming op and field.
TEST_F(RunnerTest, AMalformedSetupReplyFailsTheCellNamingOpAndField) {
  auto first_error = [this](const Result<RunSummary>& s) -> std::string {
    EXPECT_TRUE(s.ok());
    if (!s.ok()) return "";
    EXPECT_EQ(s->cells_ok, 0);
    auto cells = store_->Cells(s->run_id);
    EXPECT_TRUE(cells.ok() && !cells->empty());
    if (!cells.ok() || cells->empty()) return "";
    EXPECT_EQ((*cells)[0].status, "failed");
    return (*cells)[0].error;
  };
  fake_.Drop("init_context", "n_ctx");
  const std::string context = first_error(Run());
  EXPECT_NE(context.find("init_context"), std::string::npos) << context;
  EXPECT_NE(context.find("n_ctx"), std::string::npos) << context;
  EXPECT_EQ(Count("pp"), 0);  // nothing ran on a context the runner could not read

  fake_.Drop("load_model", "model");
  const int contexts = Count("init_context");
  const std::string load = first_error(Run());
  EXPECT_NE(load.find("load_model"), std::string::npos) << load;
  EXPECT_NE(load.find("'model'"), std::string::npos) << load;
  EXPECT_EQ(Count("init_context"), contexts);  // no context after a load it could not read
}

// A runtime that applies another value than the one planned fails the cell (its figures would
// be stored under the wrong parameters), and the context it made is still stored as it came: the
// record of what the runtime applied.
TEST_F(RunnerTest, APlannedParameterTheRuntimeChangedFailsTheCellKeepingItsContext) {
  bool set = false;
  for (auto& [name, values] : ex_.params) {
    if (name == "n_ubatch") values = {"256"}, set = true;
  }
  if (!set) ex_.params.push_back({"n_ubatch", {"256"}});
  fake_.CapUbatch(128);
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 0);
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok() && !cells->empty());
  EXPECT_EQ((*cells)[0].status, "failed");
  EXPECT_EQ((*cells)[0].error, "the runtime applied n_ubatch 128 instead of the planned 256");
  auto samples = store_->Samples((*cells)[0].id);
  ASSERT_TRUE(samples.ok());
  const store::SampleRecord* context = nullptr;
  for (const auto& x : *samples) {
    if (x.test == "context") context = &x;
  }
  ASSERT_NE(context, nullptr) << "the context sample was not stored";
  EXPECT_EQ(context->raw["n_ubatch"], 128);
  EXPECT_EQ(context->raw["params_set"]["n_ubatch"], 256);
  EXPECT_EQ(Count("pp"), 0);  // nothing measured under parameters that did not apply
}

// A runtime may know no batch size (an HTTP endpoint): the replies need not say one, and the
// requests then leave the batch to the context. Without the vocabulary size the random-token
// tests cannot run: the cell fails saying which figure needs it; ttft (text) needs none.
TEST_F(RunnerTest, NBatchAndNVocabAreOptionalInTheSetupReplies) {
  fake_.Drop("init_context", "n_batch");
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_failed, 0);
  ASSERT_GT(Count("pp"), 0);
  for (const auto& c : fake_.calls()) {
    if (c.op == "pp") {
      EXPECT_FALSE(c.request.contains("n_batch")) << c.request.dump();
    }
  }

  fake_.Drop("load_model", "model.n_vocab");
  auto no_vocab = Run();
  ASSERT_TRUE(no_vocab.ok()) << no_vocab.error().message;
  EXPECT_EQ(no_vocab->cells_ok, 0);
  auto cells = store_->Cells(no_vocab->run_id);
  ASSERT_TRUE(cells.ok() && !cells->empty());
  EXPECT_NE((*cells)[0].error.find("model.n_vocab"), std::string::npos) << (*cells)[0].error;
}

// A runtime whose worker does not serve a workload's op: that workload is n/a (stored with the
// reason), the cell goes on and succeeds.
TEST_F(RunnerTest, AWorkloadWhoseOpTheWorkerDoesNotServeIsNotApplicable) {
  fake_.Lack("tg");
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 4);
  EXPECT_EQ(s->cells_failed, 0);
  EXPECT_EQ(Count("tg"), 0);
  EXPECT_EQ(Count("pp"), 4 * (1 + 3));
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  auto samples = store_->Samples((*cells)[0].id);
  ASSERT_TRUE(samples.ok());
  int na = 0, tg = 0, memory = 0;
  for (const auto& x : *samples) {
    if (x.test == "tg4") ++tg;
    if (x.test == "memory") ++memory;
    if (x.test != "na") continue;
    ++na;
    EXPECT_EQ(x.raw["phase"], "tg4");
    EXPECT_EQ(x.raw["op"], "tg");
    EXPECT_EQ(x.raw["reason"], "runtime 'llama.cpp' does not serve op 'tg'");
  }
  EXPECT_EQ(na, 1);
  EXPECT_EQ(tg, 0);
  EXPECT_EQ(memory, 1);  // the cell went on after the n/a workload
}

TEST_F(RunnerTest, UnsetParametersAreNotSentAndAreStoredAsTheRuntimeAppliedThem) {
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  const std::vector<json> contexts = Requests("init_context");
  ASSERT_FALSE(contexts.empty());
  const json& req = contexts[0];
  EXPECT_EQ(req["n_threads"], 1);  // set by the experiment
  EXPECT_TRUE(req.contains("n_ctx"));
  for (const char* k : {"n_batch", "n_ubatch", "type_k", "type_v", "flash_attn"}) {
    EXPECT_FALSE(req.contains(k)) << k << " was sent: " << req.dump();
  }
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  const json& p = (*cells)[0].params;
  EXPECT_EQ(p["threads"], 1);
  EXPECT_EQ(p["n_batch"], 256);  // the runtime's 2048, clamped by it to the 256-token context
  EXPECT_EQ(p["n_ubatch"], 256);
  EXPECT_EQ(p["type_k"], "f16");
  EXPECT_EQ(p["flash_attn"], "on");  // auto, as the runtime resolved it
  // The cell's identity holds only what the experiment set.
  EXPECT_EQ((*cells)[0].key.find("flash_attn"), std::string::npos) << (*cells)[0].key;
  auto samples = store_->Samples((*cells)[0].id);
  ASSERT_TRUE(samples.ok());
  bool seen = false;
  for (const auto& x : *samples) {
    if (x.test != "context") continue;
    seen = true;
    EXPECT_EQ(x.raw["flash_attn"], "auto");
    EXPECT_EQ(x.raw["params_set"], (json{{"threads", 1}, {"n_ctx", 256}, {"depth", 0}}));
    EXPECT_FALSE(x.raw["request"].contains("n_batch"));
  }
  EXPECT_TRUE(seen);
}

TEST_F(RunnerTest, BrokenWorkerFailsItsCellAndANewWorkerServesTheNext) {
  fake_.Fail({"tg", 1, /*broken=*/true, /*launch=*/1});
  auto s = Run();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->cells_failed, 1);
  EXPECT_EQ(s->cells_ok, 3);
  EXPECT_EQ(fake_.launches(), 3);  // after the broken one; then model b's own
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ((*cells)[0].status, "failed");
  EXPECT_EQ((*cells)[0].error, "the fake worker broke during 'tg', as told");
  // The failure's context names the cell and the op, as data; its words are the stored error.
  ASSERT_EQ(s->failures.size(), 1u);
  const Error& failed = s->failures[0];
  EXPECT_EQ(failed.context.cell, cells_[0].Key());
  EXPECT_EQ(failed.context.cell, (*cells)[0].key);
  EXPECT_EQ(failed.context.op, "tg");
  EXPECT_EQ(failed.message, Describe(failed.context, (*cells)[0].error));
  EXPECT_EQ((*cells)[0].stderr_tail, "fake stderr");
  EXPECT_EQ((*cells)[0].worker_pid, 1001);
  EXPECT_EQ((*cells)[1].status, "ok");
  EXPECT_EQ((*cells)[1].worker_pid, 1002);
  EXPECT_EQ((*cells)[1].load_cell_id, (*cells)[1].id);  // the model was loaded again
  // The pp samples measured before the failure are kept.
  auto kept = store_->Samples((*cells)[0].id);
  ASSERT_TRUE(kept.ok());
  int pp = 0;
  for (const auto& x : *kept) pp += x.test == "pp8";
  EXPECT_EQ(pp, 4);
}

// --interleave: every cell visited once per repetition, in rounds; the cells stay one record
// each, with all their repetitions, and the run says it was interleaved.
TEST_F(RunnerTest, InterleaveVisitsEveryCellOncePerRepetitionInRounds) {
  ex_.interleave = true;
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 4);
  auto run = store_->Run(s->run_id);
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->interleave);
  // Cells a1 a2 b1 b2, three rounds: model a loaded again in each round after b.
  EXPECT_EQ(Count("load_model"), 6);
  EXPECT_EQ(Count("init_context"), 12);     // a context per visit
  EXPECT_EQ(Count("pp"), 4 * 3 * (1 + 1));  // each visit: a warm-up and one repetition
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 4u);
  // Measured pp samples in the order they were stored: round by round, every cell in each.
  std::vector<std::pair<int64_t, int>> order;  // (sample id, visit)
  for (const auto& c : *cells) {
    EXPECT_EQ(c.status, "ok");
    auto samples = store_->Samples(c.id);
    ASSERT_TRUE(samples.ok());
    int measured = 0, warm = 0, loads = 0;
    std::set<int> reps;
    for (const auto& x : *samples) {
      loads += x.test == "load";
      if (x.test != "pp8") continue;
      ASSERT_TRUE(x.raw.contains("visit")) << x.raw;
      if (x.warmup) {
        ++warm;
        continue;
      }
      ++measured;
      reps.insert(x.rep);
      order.emplace_back(x.id, x.raw["visit"].get<int>());
    }
    EXPECT_EQ(measured, 3);
    EXPECT_EQ(warm, 3);
    EXPECT_EQ(reps, (std::set<int>{1, 2, 3}));  // after the one warm-up, numbered across visits
    EXPECT_LE(loads, 1);                        // a cell's load sample is its first visit's
  }
  std::sort(order.begin(), order.end());
  for (size_t i = 1; i < order.size(); ++i) EXPECT_LE(order[i - 1].second, order[i].second);
  EXPECT_EQ(order.front().second, 0);
  EXPECT_EQ(order.back().second, 2);
}

// A visit that fails fails its cell only, saying which visit, and keeps what it measured before.
TEST_F(RunnerTest, AnInterleavedCellFailingAtALaterVisitKeepsItsEarlierRepetitions) {
  ex_.interleave = true;
  fake_.Fail({"tg", 1, /*broken=*/true, /*launch=*/3});  // model a's worker of the second round
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_failed, 1);
  EXPECT_EQ(s->cells_ok, 3);
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ((*cells)[0].status, "failed");
  EXPECT_EQ((*cells)[0].error.rfind("visit 2 of 3 (--interleave): ", 0), 0u) << (*cells)[0].error;
  auto samples = store_->Samples((*cells)[0].id);
  ASSERT_TRUE(samples.ok());
  int pp = 0;
  for (const auto& x : *samples) pp += x.test == "pp8" && !x.warmup;
  EXPECT_EQ(pp, 2);  // the first visit's and the second's pp, made before its tg broke
  for (size_t i = 1; i < cells->size(); ++i) EXPECT_EQ((*cells)[i].status, "ok") << i;
}

// Sets the stop flag once `n` phases named `phase` have finished (Ctrl-C at a known moment).
class StopAfter : public PhaseLog {
 public:
  StopAfter(std::atomic<bool>* stop, std::string phase, int n)
      : stop_(stop), phase_(std::move(phase)), n_(n) {}
  void PhaseFinished(const plan::Cell& c, int n_cells, const std::string& phase, double seconds,
                     double fraction, double left) override {
    PhaseLog::PhaseFinished(c, n_cells, phase, seconds, fraction, left);
    if (phase == phase_ && --n_ == 0) stop_->store(true);
  }

 private:
  std::atomic<bool>* stop_;
  std::string phase_;
  int n_;
};

// Ctrl-C between two rounds: every cell is interrupted with what its first visit measured, and a
// resume would measure them again (they are not ok).
TEST_F(RunnerTest, AnInterleavedRunStoppedBetweenRoundsInterruptsTheOpenCells) {
  ex_.interleave = true;
  std::atomic<bool> stop{false};
  StopAfter sink(&stop, "tg4", 4);  // the last cell's tg4 of the first round
  auto s = Run(&stop, nullptr, &sink);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->interrupted);
  EXPECT_EQ(s->cells_ok, 0);
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 4u);
  for (const auto& c : *cells) {
    EXPECT_EQ(c.status, "interrupted");
    EXPECT_EQ(c.error, "interrupted between the rounds of --interleave");
    EXPECT_FALSE(c.finished_at.empty());
    auto samples = store_->Samples(c.id);
    ASSERT_TRUE(samples.ok());
    int pp = 0;
    for (const auto& x : *samples) pp += x.test == "pp8" && !x.warmup;
    EXPECT_EQ(pp, 1);  // the first round's repetition, kept
  }
}

// Without warm-ups the repetitions are numbered 0, 1, 2 across the visits; with one repetition
// there are no rounds, and the run does not say it was interleaved.
TEST_F(RunnerTest, InterleavedRepetitionsNumberFromTheWarmUpsAndOneRepetitionIsNoRound) {
  ex_.interleave = true;
  ex_.warmup = 0;
  ex_.models.resize(1);
  ex_.params[0].second = {"1"};
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok() && cells->size() == 1u);
  auto samples = store_->Samples((*cells)[0].id);
  ASSERT_TRUE(samples.ok());
  std::vector<int> reps;
  for (const auto& x : *samples) {
    if (x.test == "pp8") reps.push_back(x.rep);
  }
  EXPECT_EQ(reps, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(store_->Run(s->run_id)->interleave);

  ex_.repetitions = 1;
  auto one = Run();
  ASSERT_TRUE(one.ok());
  EXPECT_FALSE(store_->Run(one->run_id)->interleave);
}

TEST_F(RunnerTest, StopFlagEndsTheRunAsInterrupted) {
  std::atomic<bool> stop{true};
  auto s = Run(&stop);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->interrupted);
  auto run = store_->Run(s->run_id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, "interrupted");
  EXPECT_EQ(fake_.launches(), 0);
}

TEST_F(RunnerTest, EveryPhaseOfEveryCellIsAnnouncedAtItsStartAndEnd) {
  ex_.params[0].second = {"1"};
  ex_.models.resize(1);
  PhaseLog log;
  auto s = Run(nullptr, nullptr, &log);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(log.lines,
            (std::vector<std::string>{"0 start load model", "0 end load model", "0 start pp8",
                                      "0 end pp8", "0 start tg4", "0 end tg4"}));
  EXPECT_DOUBLE_EQ(log.last_fraction, 1.0);
}

TEST_F(RunnerTest, AResumeMeasuresOnlyWhatItIsToldAndSupersedesCellsCutShort) {
  fake_.Fail({"tg", 1, true, 1});  // cell 1 fails in the first run
  auto first = Run();
  ASSERT_TRUE(first.ok());
  auto before = store_->Cells(first->run_id);
  ASSERT_EQ(before->size(), 4u);
  ASSERT_TRUE(store_->FinishRun(first->run_id, "interrupted").ok());
  const size_t samples_of_failed = store_->Samples((*before)[0].id)->size();

  const int before_resume = Count("init_context");
  ResumePlan rp;
  rp.run_id = first->run_id;
  rp.done = {{1, (*before)[1].id}, {2, (*before)[2].id}, {3, (*before)[3].id}};
  rp.supersede = {{0, (*before)[0].id}};
  rp.to_run = {0};
  others_ = json::array({{{"pid", 77}, {"program", "pipette-worker-llama"}}});
  auto s = Run(nullptr, &rp);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->run_id, first->run_id);
  EXPECT_EQ(s->cells_ok, 1);
  EXPECT_EQ(s->cells_kept, 3);
  EXPECT_EQ(Count("init_context") - before_resume, 1);  // only cell 1 measured
  auto after = store_->Cells(first->run_id);
  ASSERT_EQ(after->size(), 5u);
  EXPECT_EQ((*after)[0].status, "superseded");
  EXPECT_EQ((*after)[1].status, "ok");
  EXPECT_EQ((*after)[1].index, 0);
  EXPECT_EQ((*after)[0].superseded_by, (*after)[1].id);
  EXPECT_EQ((*after)[1].environment_id, env_id_);
  EXPECT_EQ((*after)[1].conditions["other_pipette"][0]["pid"], 77);
  EXPECT_EQ(store_->Samples((*after)[0].id)->size(), samples_of_failed);  // kept, as they were
  auto run = store_->Run(first->run_id);
  EXPECT_EQ(run->status, "done");
  EXPECT_EQ(run->resumes, 1);
  EXPECT_EQ(run->controller["host"], "fake");
}

class RunnerDevicesTest : public RunnerTest {
 protected:
  void SetUp() override {
    RunnerTest::SetUp();
    config::DeviceSpec board;
    board.name = "board";
    board.kind = "ssh";
    board.options = {{"host", "10.0.0.2"}};
    ex_.devices = {config::DeviceSpec{}, board};
    auto env = store_->AddEnvironment({0, "fp-board", {{"cpu_model", "board cpu"}}});
    ASSERT_TRUE(env.ok());
    board_env_ = *env;
  }
  Result<RunSummary> RunOnDevices() {
    auto cells = plan::Expand(ex_, runtime::Registry(), workload::PlanNeeds());
    EXPECT_TRUE(cells.ok());
    cells_ = *cells;
    RunnerDeps deps;
    deps.workloads = workload::MakeWorkloads;
    deps.runtimes = &runtime::Registry();
    deps.derivers = &workload::Derivers();
    deps.device = &device_;
    deps.store = store_.get();
    deps.conditions = [] { return json{{"load_avg_1", 0.1}}; };
    deps.other_pipettes = [this] { return others_; };
    deps.model_facts = [](const std::string&) {
      return Result<ModelFacts>(ModelFacts{"sha", 1234, {{"quant", "Q4_1"}}});
    };
    deps.open_device = [this](const config::DeviceSpec& spec) -> Result<OpenDevice> {
      ++opens_;
      EXPECT_EQ(spec.name, "board");
      if (!open_error_.empty()) return RuntimeError(open_error_);
      return OpenDevice{&board_, board_env_};
    };
    deps.worker_for = [this](const config::RuntimeSpec& r, device::Device& d) {
      workers_.push_back(d.Name() + ":" + r.worker);
      return Result<std::string>(r.worker);
    };
    return RunExperiment(ex_, cells_, registry_, env_id_, deps);
  }
  // A device other than this machine, as a fake: its workers the same fake's, its architecture
  // aarch64, its link up until told otherwise.
  testing::FakeDevice board_ = [this] {
    testing::FakeDevice d(&fake_, "board");
    d.arch = "aarch64";
    d.conditions = {{"load_avg_1", 3.5}};
    d.link = [this]() -> Status {
      if (link_down_)
        return RuntimeError("ssh: connect to host 10.0.0.2 port 22: Connection refused");
      return {};
    };
    return d;
  }();
  bool link_down_ = false;
  int64_t board_env_ = 0;
  int opens_ = 0;
  std::string open_error_;
  std::vector<std::string> workers_;
};

// The cells of every device, the devices slowest: each device's cells point at its environment,
// carry its conditions, and get the worker built for it; another Pipette on this machine is noted
// only in this machine's cells.
TEST_F(RunnerDevicesTest, EachDeviceRunsItsCellsWithItsOwnEnvironmentAndWorker) {
  others_ = json::array({{{"pid", 77}, {"program", "pipette-worker-llama"}}});
  auto s = RunOnDevices();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 8);
  EXPECT_EQ(opens_, 1);  // opened once, when its first cell ran
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    const bool on_board = i >= 4;
    const store::CellRecord& c = (*cells)[i];
    EXPECT_EQ(c.environment_id, on_board ? board_env_ : env_id_) << i;
    EXPECT_EQ(c.key.ends_with(",device=board"), on_board) << c.key;
    EXPECT_EQ(c.conditions["load_avg_1"], on_board ? 3.5 : 0.1) << i;
    EXPECT_EQ(c.conditions.contains("other_pipette"), !on_board) << i;
  }
  // A worker for each model on each device: the board's through worker_for.
  EXPECT_EQ(workers_, (std::vector<std::string>{"local:/fake/worker", "local:/fake/worker",
                                                "board:/fake/worker", "board:/fake/worker"}));
  EXPECT_EQ(fake_.launches(), 4);
}

// A device that cannot be reached fails its own cells with the reason, each at once, and the
// run goes on with the others.
TEST_F(RunnerDevicesTest, ADeviceThatCannotBeReachedFailsOnlyItsCells) {
  open_error_ = "ssh: connect to host 10.0.0.2 port 22: No route to host";
  auto s = RunOnDevices();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 4);
  EXPECT_EQ(s->cells_failed, 4);
  EXPECT_EQ(opens_, 1);  // not tried again for each of its cells
  auto cells = store_->Cells(s->run_id);
  for (size_t i = 4; i < 8; ++i) {
    EXPECT_EQ((*cells)[i].status, "failed");
    EXPECT_EQ((*cells)[i].error,
              "device 'board' (ssh 10.0.0.2:22) cannot run cells: ssh: connect to host "
              "10.0.0.2 port 22: No route to host");
  }
}

// A board cell whose worker dies while the link no longer answers fails with the link as its
// reason; the board's later cells fail at once, and what was measured before stays.
TEST_F(RunnerDevicesTest, ALinkThatDropsFailsTheCellWithThatReasonAndTheRestOfTheDevice) {
  // The fifth launch is the board's first worker: it breaks during its first tg.
  fake_.Fail({"tg", 1, /*broken=*/true, /*launch=*/3});
  link_down_ = true;
  auto s = RunOnDevices();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 4);
  EXPECT_EQ(s->cells_failed, 4);
  EXPECT_EQ(board_.link_checks, 1);
  auto cells = store_->Cells(s->run_id);
  EXPECT_TRUE((*cells)[4].error.starts_with(
      "link to device 'board' dropped: ssh: connect to host 10.0.0.2 port 22: Connection "
      "refused (the cell failed with: "))
      << (*cells)[4].error;
  for (size_t i = 5; i < 8; ++i) {
    EXPECT_TRUE((*cells)[i].error.starts_with("link to device 'board' dropped during cell 5"))
        << (*cells)[i].error;
  }
  EXPECT_EQ(fake_.launches(), 3);  // none after the link dropped
  auto kept = store_->Samples((*cells)[4].id);
  int pp = 0;
  for (const auto& x : *kept) pp += x.test == "pp8";
  EXPECT_EQ(pp, 4);  // the pp samples measured before the drop are kept
}

// A cell on a device whose link still answers failed for a reason of its own: that reason stays.
TEST_F(RunnerDevicesTest, ACellFailingWhileTheLinkAnswersKeepsItsOwnReason) {
  fake_.Fail({"tg", 1, true, 3});
  auto s = RunOnDevices();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->cells_failed, 1);
  EXPECT_EQ(s->cells_ok, 7);
  auto cells = store_->Cells(s->run_id);
  EXPECT_EQ((*cells)[4].error, "the fake worker broke during 'tg', as told");
}

// Full-vocabulary KLD: a reference worker (model a, loaded once) scores every chunk beside the
// cell's own worker; the frames are reduced as they come and only per-position facts are kept.
class RunnerKldTest : public RunnerTest {
 protected:
  void SetUp() override {
    RunnerTest::SetUp();
    std::ofstream(dir_ / "corpus.txt") << std::string(100, 'x') + "some text for the chunks";
    workload::KldSpec k;
    k.reference = "a";
    k.corpus = (dir_ / "corpus.txt").string();
    k.n_ctx = 32;
    k.chunks = 2;
    workload::SetKldSpec(&ex_, k);
    ex_.tests.clear();
  }
  std::vector<metrics::ResultRow> Rows(int64_t run_id) {
    std::vector<metrics::CellSamples> cs;
    auto cells = store_->Cells(run_id);
    auto run = store_->Run(run_id);
    if (!cells.ok() || !run.ok()) return {};
    for (const store::CellRecord& c : *cells) {
      auto samples = store_->Samples(c.id);
      if (samples.ok()) cs.push_back({c, *samples});
    }
    return metrics::DeriveRows(*run, {0, "fp", json::object()}, cs, workload::Derivers());
  }
  static double Figure(const std::vector<metrics::ResultRow>& rows, int cell,
                       const std::string& metric) {
    for (const auto& r : rows) {
      if (r.cell->cell_index == cell && r.test == "kld" && r.metric == metric) return r.value;
    }
    return -1;
  }
};

TEST_F(RunnerKldTest, FullVocabularyAgainstAReferenceWorkerLoadedOnce) {
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 4);
  EXPECT_EQ(fake_.launches(), 3);       // a's and b's workers, and one reference worker
  EXPECT_EQ(Count("load_model"), 3);    // the reference model loaded once for the run
  EXPECT_EQ(Count("init_context"), 8);  // each cell's, and the reference's at its threads
  EXPECT_EQ(fake_.frames_read(), 4 * 2 * 2 * 15);  // cells x chunks x workers x positions
  auto cells = store_->Cells(s->run_id);
  auto samples = store_->Samples((*cells)[2].id);
  int chunks = 0;
  for (const auto& x : *samples) {
    if (x.test != "kld") continue;
    ++chunks;
    EXPECT_EQ(x.raw["mode"], "full");
    EXPECT_EQ(x.raw["kl"].size(), 15u);  // positions 16..30 of 32
    EXPECT_EQ(x.raw["request"]["from"], 16);
    EXPECT_FALSE(x.raw.contains("logits"));
  }
  EXPECT_EQ(chunks, 2);
  const auto rows = Rows(s->run_id);
  EXPECT_EQ(Figure(rows, 0, "kld_mean"), 0.0);  // the reference's own cells: the same logits
  EXPECT_EQ(Figure(rows, 1, "kld_max"), 0.0);
  EXPECT_EQ(Figure(rows, 0, "top1_agree"), 1.0);
  EXPECT_GT(Figure(rows, 2, "kld_mean"), 0.001);
  EXPECT_EQ(Figure(rows, 2, "ref_tail_mass"), -1);  // no tail: every id is compared
  for (const auto& r : rows) {
    if (r.test == "kld") {
      EXPECT_EQ(r.subset, "full vocabulary; reference a");
    }
  }
}

// The reference distribution stays one across cells: the reference worker keeps the reference
// cell's parameters that change the distribution (changes_distribution: type_k here) and takes
// the cell's others (threads).
TEST_F(RunnerKldTest, TheReferenceKeepsItsDistributionParametersAndTakesTheCellsOthers) {
  ex_.params.push_back({"type_k", {"q8_0", "f16"}});
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 8);
  std::set<json> own_type_k, ref_type_k, ref_threads;
  for (const auto& c : fake_.calls()) {
    if (c.op != "init_context") continue;
    // Launch 2 is the reference worker, started by the first cell's kld phase.
    (c.launch == 2 ? ref_type_k : own_type_k).insert(c.request.value("type_k", json()));
    if (c.launch == 2) ref_threads.insert(c.request.value("n_threads", json()));
  }
  EXPECT_EQ(own_type_k, (std::set<json>{"q8_0", "f16"}));
  EXPECT_EQ(ref_type_k, (std::set<json>{"q8_0"}));  // the reference cell's, for every cell
  EXPECT_EQ(ref_threads, (std::set<json>{1, 2}));
}

TEST_F(RunnerKldTest, AReferenceWorkerThatDiesFailsThatCellAndIsStartedAgain) {
  // The reference worker (launch 2, started by the first cell's kld phase) dies at its first frame.
  fake_.Fail({"frames", 1, true, 2});
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_failed, 1);
  EXPECT_EQ(s->cells_ok, 3);
  auto cells = store_->Cells(s->run_id);
  EXPECT_EQ((*cells)[0].status, "failed");
  EXPECT_EQ((*cells)[0].error,
            "the kld reference worker (a) failed: the fake worker broke during its frames, as "
            "told; its standard error ended with: fake stderr");
  EXPECT_EQ((*cells)[1].status, "ok");
  EXPECT_EQ(Count("load_model"), 5);  // a's worker again after the failure, a new reference
}

}  // namespace
}  // namespace pipette::run
