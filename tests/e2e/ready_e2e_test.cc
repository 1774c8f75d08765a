// The readiness gate through `pipette run`: this machine's sensors read from a fake sysfs tree
// (tests/data/fake-sysfs, named as a fake: this machine exposes no thermal zone) gate on the
// temperature; busy loops the test starts and stops gate on CPU busy, for real.
#include <gtest/gtest.h>

#include <atomic>
#include <regex>
#include <thread>

#include "fixture.h"
#include "pipette/env/cpu_busy.h"
#include "pipette/testing/busy_loops.h"

namespace pipette_e2e {
namespace {

// A copy of the fake tree at `tree`, made the sensors' root, whose package energy counter
// advances 1 mJ every 2 ms until Stop (or the end of the scope).
class AdvancingCounter {
 public:
  explicit AdvancingCounter(const fs::path& tree) {
    fs::copy(kSource + "/tests/data/fake-sysfs", tree, fs::copy_options::recursive);
    setenv("PIPETTE_SYSFS_ROOT", tree.c_str(), 1);
    const fs::path counter = tree / "sys/class/powercap/intel-rapl:0/energy_uj";
    thread_ = std::thread([this, counter] {
      int64_t uj = 1000000;
      while (!done_) {
        uj += 1000;
        const fs::path part = counter.string() + ".part";
        std::ofstream(part) << uj << "\n";
        fs::rename(part, counter);  // never read half-written
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  }
  ~AdvancingCounter() { Stop(); }
  void Stop() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

class ReadyE2E : public E2E {
 protected:
  void SetUp() override {
    E2E::SetUp();
    setenv("PIPETTE_SYSFS_ROOT", (kSource + "/tests/data/fake-sysfs").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("PIPETTE_SYSFS_ROOT");
    E2E::TearDown();
  }
  fs::path Experiment(const std::string& ready, const std::string& threads = "1") {
    return Write("ex.yaml",
                 "models: [smollm2-135m-instruct-q4_1]\n"
                 "params: {threads: " +
                     threads +
                     "}\n"
                     "tests: [tg4]\n"
                     "repetitions: 2\n" +
                     ready);
  }
  // How many cells run 1 of the store at `path` began.
  static size_t CellCount(const fs::path& path) {
    auto st = pipette::store::Store::Open(path.string());
    EXPECT_TRUE(st.ok());
    if (!st.ok()) return 0;
    auto cells = (*st)->Cells(1);
    return cells.ok() ? cells->size() : 0;
  }
  // The `ready` stored with each measured repetition of tg4 in the run's first cell.
  std::vector<json> Found() {
    std::vector<json> out;
    for (const auto& s : Samples(1, "tg4")) {
      if (!s.warmup) out.push_back(s.raw.value("ready", json()));
    }
    return out;
  }
};

TEST_F(ReadyE2E, TheFakeTreesTemperatureGatesAndIsStoredWithEachRepetition) {
  Output ok = Pipette({"run", Experiment("ready: {cpu_busy: 100, temperature: 70}\n").string(),
                       "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(ok.code, 0) << ok.err;
  const auto found = Found();
  ASSERT_EQ(found.size(), 2u);
  for (const json& f : found) {
    EXPECT_EQ(f["ready"], true);
    EXPECT_EQ(f["temp_c"], 48.5);  // the fake tree's CPU zone
    EXPECT_EQ(f["sensors_root"], kSource + "/tests/data/fake-sysfs");
    EXPECT_TRUE(f["cpu_busy"].is_number());
  }
  // 48.5 °C is above 40: each cell fails with the reason, after the deadline; the run goes on.
  Output hot = Pipette(
      {"run",
       Experiment("ready: {cpu_busy: 100, temperature: 40, deadline: 2}\n", "[1, 2]").string(),
       "--store", (dir_ / "hot.db").string(), "--no-bandwidth"});
  EXPECT_EQ(hot.code, 1) << hot.err;
  EXPECT_NE((hot.out + hot.err).find("the CPU is at 48.5 °C, above the 40 °C allowed"),
            std::string::npos)
      << hot.out << hot.err;
  EXPECT_EQ(CellCount(dir_ / "hot.db"), 2u);
  // --strict: the run stops at the first cell; the second never begins.
  Output strict = Pipette(
      {"run",
       Experiment("ready: {cpu_busy: 100, temperature: 40, deadline: 1}\n", "[1, 2]").string(),
       "--store", (dir_ / "strict.db").string(), "--no-bandwidth", "--strict"});
  EXPECT_EQ(strict.code, 1);
  EXPECT_NE(strict.err.find("--strict: the device was not ready for cell 1"), std::string::npos)
      << strict.err;
  EXPECT_EQ(CellCount(dir_ / "strict.db"), 1u);
}

// The share of the CPUs other programs than this test kept busy over one second, as the gate
// reads it; -1 where it cannot be read.
double BusyOthersNow() {
  const pipette::env::LocalFiles files;
  const auto before = pipette::env::ReadBusy(files, getpid());
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const auto after = pipette::env::ReadBusy(files, getpid());
  if (!before || !after) return -1;
  return pipette::env::BusyOthers(*before, *after).value_or(-1);
}

// Busy loops of someone else's keep every CPU busy: not ready; once they stop, ready. The second
// half needs a machine the test's loops alone made busy: on one other programs keep busy already
// (a fuzzer beside the tests), it is skipped and says so, rather than failing on the machine.
TEST_F(ReadyE2E, BusyLoopsOfAnotherProgramHoldTheRepetitionsBack) {
  const double background = BusyOthersNow();
  pipette::testing::BusyLoops loops;
  Output busy = Pipette({"run", Experiment("ready: {cpu_busy: 30, deadline: 2}\n").string(),
                         "--store", (dir_ / "busy.db").string(), "--no-bandwidth"});
  EXPECT_EQ(busy.code, 1) << busy.err;
  EXPECT_NE((busy.out + busy.err).find("other processes kept the CPUs"), std::string::npos)
      << busy.out << busy.err;
  loops.Stop();
  if (background > 0.75) {
    GTEST_SKIP() << "other programs keep this machine's CPUs " << int(background * 100)
                 << "% busy without the test's loops: that the gate lets the repetitions go once "
                    "the loops stop cannot be shown here";
  }
  Output quiet = Pipette({"run", Experiment("ready: {cpu_busy: 90, deadline: 60}\n").string(),
                          "--store", Store(), "--no-bandwidth"});
  EXPECT_EQ(quiet.code, 0) << quiet.err;
  const auto found = Found();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0]["ready"], true);
  EXPECT_GE(found[0]["looks"].get<int>(), 1);
}

// Energy per token against a copy of the fake tree whose package counter the test advances (1 mJ
// every 2 ms) while Pipette runs: each measured pp and tg repetition stores the joules its
// request cost, read from that tree (and says so), and the report gives J/token and watts from
// exactly those joules.
TEST_F(ReadyE2E, EnergyPerTokenFromTheFakeTreesCounter) {
  const fs::path tree = dir_ / "sysfs";
  AdvancingCounter counter(tree);
  const auto ex = Write("energy.yaml",
                        "models: [smollm2-135m-instruct-q4_1]\n"
                        "params: {threads: 1}\n"
                        "tests: [pp16, tg4]\n"
                        "repetitions: 2\n"
                        "warmup: 1\n");
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  counter.Stop();
  ASSERT_EQ(o.code, 0) << o.err;
  const json report = ReportJson();
  for (const auto& [test, tokens] : {std::pair{"pp16", 16}, std::pair{"tg4", 4}}) {
    std::vector<double> per_token, watts;
    for (const auto& s : Samples(1, test)) {
      if (s.warmup) {
        EXPECT_FALSE(s.raw.contains("energy")) << test;
        continue;
      }
      const json& e = s.raw["energy"];
      ASSERT_EQ(e["source"], "powercap") << e;
      EXPECT_EQ(e["sensors_root"], tree.string());
      EXPECT_GT(e["joules"].get<double>(), 0) << e;
      // The span between the readings holds the request (and the second reading).
      const double w = e["joules"].get<double>() / e["seconds"].get<double>();
      const int64_t t0 = s.raw["t_start_ns"];
      const int64_t t1 = test == std::string("pp16") ? s.raw["t_end_ns"].get<int64_t>()
                                                     : s.raw["token_end_ns"].back().get<int64_t>();
      EXPECT_GE(e["seconds"].get<double>(), double(t1 - t0) / 1e9) << e;
      // J/token: that power over the timed span, per token.
      per_token.push_back(w * (double(t1 - t0) / 1e9) / tokens);
      watts.push_back(w);
    }
    ASSERT_EQ(per_token.size(), 2u);
    const json* row = Find(report["results"], 1, test, "energy_per_token");
    ASSERT_NE(row, nullptr) << test;
    EXPECT_EQ((*row)["unit"], "J/token");
    const std::vector<double> got = (*row)["samples"];
    ASSERT_EQ(got.size(), 2u);
    for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(got[i], per_token[i], 1e-9 * per_token[i]) << test;
    const json* power = Find(report["results"], 1, test, "power");
    ASSERT_NE(power, nullptr) << test;
    EXPECT_EQ((*power)["samples"].get<std::vector<double>>(), watts);
  }
}

// sustained<T> against the fake tree: after each chunk the sensors are read; every full 10 s
// window gets its hottest temperature, mean frequency and power from those readings, and the run
// its energy per token from the joules the test's advancing counter gave. e2e@P+N beside it.
TEST_F(ReadyE2E, SustainedWindowsCarryTheFakeTreesSensorsAndE2eTimesTheWholeRequest) {
  const fs::path tree = dir_ / "sysfs";
  AdvancingCounter counter(tree);
  const auto ex = Write("sustained.yaml",
                        "models: [smollm2-135m-instruct-q4_1]\n"
                        "params: {threads: 1}\n"
                        "tests: [e2e@16+4, sustained20]\n"
                        "repetitions: 2\n"
                        "warmup: 1\n");
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  counter.Stop();
  ASSERT_EQ(o.code, 0) << o.err;

  // One sample, whatever the repetitions: chunks of tokens, each with its reading.
  const auto runs = Samples(1, "sustained20");
  ASSERT_EQ(runs.size(), 1u);
  const json& chunks = runs[0].raw["chunks"];
  ASSERT_GE(chunks.size(), 2u);
  EXPECT_EQ(runs[0].raw["sensors_root"], tree.string());
  double joules = 0;
  int64_t tokens = 0;
  for (const json& c : chunks) {
    // About 2 s of tokens each, sized from the chunk before: 4 to 64.
    EXPECT_GE(c["token_end_ns"].size(), 4u);
    EXPECT_LE(c["token_end_ns"].size(), 64u);
    EXPECT_EQ(c["sensors"]["temp_c"], 48.5);      // the fake tree's CPU zone
    EXPECT_EQ(c["sensors"]["freq_mhz"], 2100.0);  // the mean of its two CPUs' 1.8 and 2.4 GHz
    EXPECT_EQ(c["sensors"]["freq_cpus"], "all");
    ASSERT_EQ(c["sensors"]["energy"]["source"], "powercap") << c["sensors"];
    joules += c["sensors"]["energy"]["joules"].get<double>();
    tokens += static_cast<int64_t>(c["token_end_ns"].size());
  }
  const json results = ReportJson()["results"];
  const json* tps = Find(results, 1, "sustained20", "throughput");
  ASSERT_NE(tps, nullptr);
  ASSERT_EQ((*tps)["samples"].size(), 2u);  // two full windows of 10 s
  const json* temps = Find(results, 1, "sustained20", "window_temp_c");
  ASSERT_NE(temps, nullptr);
  EXPECT_EQ((*temps)["samples"], json::array({48.5, 48.5}));
  const json* power = Find(results, 1, "sustained20", "window_power");
  ASSERT_NE(power, nullptr);
  for (const json& w : (*power)["samples"]) EXPECT_GT(w.get<double>(), 0);
  EXPECT_NEAR(Value(results, 1, "sustained20", "energy_per_token"), joules / double(tokens), 1e-12);
  ASSERT_NE(Find(results, 1, "sustained20", "decay"), nullptr);

  // e2e: the whole request, at least its first token's time, from the worker's timestamps.
  const auto e2e = Samples(1, "e2e@16+4");
  ASSERT_EQ(e2e.size(), 3u);  // a warm-up and two repetitions
  for (const auto& s : e2e) {
    EXPECT_EQ(s.raw["n_prompt"], 16);
    EXPECT_EQ(s.raw["tokens"].size(), 4u);
  }
  EXPECT_GE(Value(results, 1, "e2e@16+4", "e2e"), Value(results, 1, "e2e@16+4", "first_token"));
  EXPECT_GT(Value(results, 1, "e2e@16+4", "decode_throughput"), 0);
  Output md = Pipette({"report", "--store", Store(), "--format", "md"});
  EXPECT_NE(md.out.find("Sustained decoding: each 10 s window"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| sustained20 | 10-20 s |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("48.5 °C"), std::string::npos) << md.out;
  // The columns' names; their widths follow the values (a rate of 100 t/s or more is wider).
  EXPECT_TRUE(std::regex_search(md.out, std::regex(R"(\| +t/s \| wall t/s \| +temp \|)")))
      << md.out;
}

// A device with no energy counter and no battery (an empty sensors tree, as this development
// machine's /sys is): energy per token is n/a, with why, and the device is read once.
TEST_F(ReadyE2E, WithoutAnEnergySourceEnergyPerTokenIsNaWithTheReason) {
  const fs::path empty = dir_ / "empty-sysfs";
  fs::create_directories(empty / "sys");
  setenv("PIPETTE_SYSFS_ROOT", empty.c_str(), 1);
  const auto ex = Write("energy.yaml",
                        "models: [smollm2-135m-instruct-q4_1]\n"
                        "params: {threads: 1}\n"
                        "tests: [tg4]\n"
                        "repetitions: 1\n");
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(o.code, 0) << o.err;
  const json report = ReportJson();
  const json* row = Find(report["results"], 1, "tg4", "energy_per_token");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE((*row)["value"].is_null());
  const auto samples = Samples(1, "tg4");
  ASSERT_FALSE(samples.empty());
  EXPECT_EQ(samples.back().raw["energy"]["sensors_root"], empty.string());
  EXPECT_NE((*row)["na"].get<std::string>().find("no powercap energy counter"), std::string::npos)
      << *row;
}

}  // namespace
}  // namespace pipette_e2e
