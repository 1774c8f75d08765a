// The scheduler with a FAKE worker: an in-process channel that answers the protocol with
// made-up timestamps, so ordering, model reuse, failure handling and storage are tested without
// a runtime. Real measurements are tested end to end in tests/e2e.
#include "pipette/run/runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "pipette/device/local_device.h"
#include "pipette/metrics/derive.h"

namespace pipette::run {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

struct FakeLog {
  int launches = 0;
  std::vector<std::string> ops;
  std::vector<json> pp_tokens;
  std::vector<json> init_contexts;
  int frames = 0;          // frames read
  std::string fail_op;     // the first request with this op ("frames": frame) breaks the worker
  int fail_on_launch = 1;  // ...but only in this launch
};

class FakeChannel : public worker::WorkerChannel {
 public:
  FakeChannel(FakeLog* log, int launch) : log_(log), launch_(launch) {}
  Result<json, worker::CallError> Call(json req, std::chrono::milliseconds) override {
    const std::string op = req["op"];
    log_->ops.push_back(op);
    if (!alive_) return worker::BrokenCall(op, "dead");
    if (op == log_->fail_op && launch_ == log_->fail_on_launch) {
      alive_ = false;
      return worker::BrokenCall(op, "the worker died during '" + op + "': killed by SIGKILL");
    }
    json o = {{"ok", true}, {"id", 1}};
    clock_ += 1'000'000;
    if (op == "hello") {
      o.update({{"protocol", 1},
                {"runtime", "llama.cpp"},
                {"runtime_version", "fake"},
                {"runtime_build", {{"system_info", "FAKE"}}}});
    } else if (op == "load_model") {
      o.update({{"t_start_ns", clock_},
                {"t_end_ns", clock_ + 5'000'000},
                {"rss_before", 10},
                {"rss_after", 110},
                {"model", {{"n_vocab", 100}, {"bos", 1}}}});
    } else if (op == "init_context") {
      // As llama.cpp: its defaults for what the request leaves out, the batch clamped to n_ctx.
      log_->init_contexts.push_back(req);
      const int64_t n_ctx = req["n_ctx"];
      const std::string fa = req.value("flash_attn", std::string("auto"));
      o.update({{"n_ctx", n_ctx},
                {"n_batch", std::min<int64_t>(req.value("n_batch", int64_t{2048}), n_ctx)},
                {"n_ubatch", std::min<int64_t>(req.value("n_ubatch", int64_t{512}), n_ctx)},
                {"n_threads", req.value("n_threads", int64_t{2})},
                {"type_k", req.value("type_k", std::string("f16"))},
                {"type_v", req.value("type_v", std::string("f16"))},
                {"flash_attn", fa},
                {"flash_attn_resolved", fa == "auto" ? "on" : fa}});
    } else if (op == "pp") {
      log_->pp_tokens.push_back(req["tokens"]);
      o.update({{"n_tokens", req["tokens"].size()},
                {"t_start_ns", clock_},
                {"t_end_ns", clock_ + 100'000'000}});
    } else if (op == "tg") {
      json ends = json::array();
      for (int i = 0; i < req["n_gen"].get<int>(); ++i)
        ends.push_back(clock_ + (i + 1) * 10'000'000);
      o.update({{"t_start_ns", clock_}, {"token_end_ns", ends}});
    } else if (op == "memory" || op == "reset_peak_memory") {
      o.update({{"rss", 500}, {"hwm", 600}});
    } else if (op == "tokenize") {
      std::vector<int64_t> t;  // one token per byte of text, within the vocabulary
      for (unsigned char ch : req["text"].get<std::string>()) t.push_back(2 + ch % 90);
      o.update({{"tokens", t}});
    } else if (op == "score" && req.value("logits", false)) {
      const int64_t n = int64_t(req["tokens"].size()), from = req["from"];
      o.update({{"n_tokens", n},
                {"from", from},
                {"frames", n - 1 - from},
                {"n_vocab", 100},
                {"t_start_ns", clock_}});
      next_frame_ = from;
      frames_left_ = n - 1 - from;
    }
    if (op == "load_model") model_ = req["path"];
    return o;
  }
  // Frames of a `score` with logits: model b's logits are model a's scaled, so its KL is > 0.
  Result<void, worker::CallError> ReadFrame(worker::LogitsFrame* f, size_t n,
                                            std::chrono::milliseconds) override {
    if (frames_left_-- <= 0 || !alive_) return worker::BrokenCall("frames", "no frame");
    log_->frames++;
    if (log_->fail_op == "frames" && launch_ == log_->fail_on_launch) {
      alive_ = false;
      return worker::BrokenCall("frames", "the worker died during its frames: killed by SIGKILL");
    }
    f->position = next_frame_++;
    f->t_ns = clock_ += 1000;
    f->logits.resize(n);
    const double scale = model_ == "/m/b.gguf" ? 1.2 : 1.0;
    for (size_t v = 0; v < n; ++v)
      f->logits[v] = float(std::cos(double(v + size_t(f->position))) * scale);
    return {};
  }
  std::string StderrTail() const override { return "fake stderr"; }
  int Pid() const override { return 1000 + launch_; }
  bool Alive() const override { return alive_; }
  void Shutdown(std::chrono::milliseconds) override { alive_ = false; }

 private:
  FakeLog* log_;
  int launch_;
  bool alive_ = true;
  int64_t clock_ = 0;
  std::string model_;
  int64_t next_frame_ = 0, frames_left_ = 0;
};

class FakeLauncher : public worker::WorkerLauncher {
 public:
  explicit FakeLauncher(FakeLog* log) : log_(log) {}
  Result<std::unique_ptr<worker::WorkerChannel>> Launch(const std::vector<std::string>&) override {
    ++log_->launches;
    return std::unique_ptr<worker::WorkerChannel>(new FakeChannel(log_, log_->launches));
  }

 private:
  FakeLog* log_;
};

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipette-runner-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    auto s = store::Store::Open((dir_ / "r.db").string());
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    auto env = store_->AddEnvironment({0, "fp", {{"cpu_model", "fake"}}});
    ASSERT_TRUE(env.ok());
    env_id_ = *env;
    ex_.path = "ex.yaml";
    ex_.name = "fake";
    ex_.models = {{"a", "/m/a.gguf", "path", 1}, {"b", "/m/b.gguf", "path", 2}};
    ex_.runtimes = {{"llama.cpp", "/fake/worker", 3}};
    // threads swept; the rest as a file that sets nothing else leaves them (runtime defaults).
    ex_.params.push_back({"threads", {"1", "2"}});
    for (const auto& d : registry_.defs()) {
      if (d.HasDefault()) ex_.params.push_back({d.name, {d.default_value}});
    }
    ex_.tests = {*config::ParseTestName("pp8"), *config::ParseTestName("tg4")};
    ex_.repetitions = 3;
    ex_.warmup = 1;
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }
  Result<RunSummary> Run(const std::atomic<bool>* stop = nullptr,
                         const ResumePlan* resume = nullptr, ProgressSink* progress = nullptr) {
    auto cells = plan::Expand(ex_, registry_);
    EXPECT_TRUE(cells.ok());
    cells_ = *cells;
    RunnerDeps deps;
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
  int Count(const std::string& op) const {
    return int(std::count(log_.ops.begin(), log_.ops.end(), op));
  }

  config::ParamRegistry registry_ = config::ParamRegistry::Default();
  config::Experiment ex_;
  std::vector<plan::Cell> cells_;
  FakeLog log_;
  FakeLauncher launcher_{&log_};
  device::LocalDevice device_{&launcher_};  // this machine, its workers the fakes above
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
  EXPECT_EQ(log_.launches, 2);  // one worker per model: no model's pages count in another's peak
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
  ASSERT_GE(log_.pp_tokens.size(), 2u);
  EXPECT_EQ(log_.pp_tokens[0], log_.pp_tokens[1]);
  for (const auto& t : log_.pp_tokens[0]) EXPECT_TRUE(t >= 0 && t < 100);
}

TEST_F(RunnerTest, UnsetParametersAreNotSentAndAreStoredAsTheRuntimeAppliedThem) {
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_FALSE(log_.init_contexts.empty());
  const json& req = log_.init_contexts[0];
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
  log_.fail_op = "tg";
  auto s = Run();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->cells_failed, 1);
  EXPECT_EQ(s->cells_ok, 3);
  EXPECT_EQ(log_.launches, 3);  // after the broken one; then model b's own
  auto cells = store_->Cells(s->run_id);
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ((*cells)[0].status, "failed");
  EXPECT_EQ((*cells)[0].error, "the worker died during 'tg': killed by SIGKILL");
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

TEST_F(RunnerTest, StopFlagEndsTheRunAsInterrupted) {
  std::atomic<bool> stop{true};
  auto s = Run(&stop);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->interrupted);
  auto run = store_->Run(s->run_id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, "interrupted");
  EXPECT_EQ(log_.launches, 0);
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
  log_.fail_op = "tg";  // cell 1 fails in the first run
  auto first = Run();
  ASSERT_TRUE(first.ok());
  auto before = store_->Cells(first->run_id);
  ASSERT_EQ(before->size(), 4u);
  ASSERT_TRUE(store_->FinishRun(first->run_id, "interrupted").ok());
  const size_t samples_of_failed = store_->Samples((*before)[0].id)->size();

  log_ = FakeLog{};
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
  EXPECT_EQ(Count("init_context"), 1);  // only cell 1 measured
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

// Full-vocabulary KLD: a reference worker (model a, loaded once) scores every chunk beside the
// cell's own worker; the frames are reduced as they come and only per-position facts are kept.
class RunnerKldTest : public RunnerTest {
 protected:
  void SetUp() override {
    RunnerTest::SetUp();
    fs::create_directories(dir_);
    std::ofstream(dir_ / "corpus.txt") << std::string(100, 'x') + "some text for the chunks";
    config::KldSpec k;
    k.reference = "a";
    k.corpus = (dir_ / "corpus.txt").string();
    k.n_ctx = 32;
    k.chunks = 2;
    ex_.kld = k;
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
    return metrics::DeriveRows(*run, {0, "fp", json::object()}, cs);
  }
  static double Figure(const std::vector<metrics::ResultRow>& rows, int cell,
                       const std::string& metric) {
    for (const auto& r : rows) {
      if (r.cell_index == cell && r.test == "kld" && r.metric == metric) return r.value;
    }
    return -1;
  }
};

TEST_F(RunnerKldTest, FullVocabularyAgainstAReferenceWorkerLoadedOnce) {
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_ok, 4);
  EXPECT_EQ(log_.launches, 3);             // a's and b's workers, and one reference worker
  EXPECT_EQ(Count("load_model"), 3);       // the reference model loaded once for the run
  EXPECT_EQ(Count("init_context"), 8);     // each cell's, and the reference's at its threads
  EXPECT_EQ(log_.frames, 4 * 2 * 2 * 15);  // cells x chunks x workers x positions
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

TEST_F(RunnerKldTest, AReferenceWorkerThatDiesFailsThatCellAndIsStartedAgain) {
  log_.fail_op = "frames";
  log_.fail_on_launch = 2;  // the reference worker, started by the first cell's kld phase
  auto s = Run();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cells_failed, 1);
  EXPECT_EQ(s->cells_ok, 3);
  auto cells = store_->Cells(s->run_id);
  EXPECT_EQ((*cells)[0].status, "failed");
  EXPECT_EQ((*cells)[0].error,
            "the kld reference worker (a) failed: the worker died during its frames: killed by "
            "SIGKILL; its standard error ended with: fake stderr");
  EXPECT_EQ((*cells)[1].status, "ok");
  EXPECT_EQ(Count("load_model"), 5);  // a's worker again after the failure, a new reference
}

}  // namespace
}  // namespace pipette::run
