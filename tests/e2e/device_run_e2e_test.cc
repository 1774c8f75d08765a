// `pipette run` with an experiment that names a board (a real sshd in a network namespace,
// ssh_board.h) beside this machine: the board's cells measured there with the real worker and
// model, stored with the board's fingerprint, compared with `report --vary device`; staged files
// found again by SHA-256 on the next run; a link that drops mid-cell fails that cell with that
// reason while the run goes on; a controller killed mid-cell leaves nothing running there.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "fixture.h"
#include "ssh_board.h"

namespace pipette_e2e {
namespace {

using std::chrono::seconds;

// The largest relative difference of perplexity allowed between this machine's x86-64 worker
// and the aarch64 one under qemu on the same model and chunks: the kernels round differently, the
// weights are the same. Measured (BENCHMARKS.md "Devices"): 0.89% on this test's 2 chunks of 128
// tokens (39.0889 here, 39.4361 emulated), 0.34% on 8 chunks.
constexpr double kEmulatedPplBound = 0.02;
// The largest kld_mean allowed between them (nats per token, 2 chunks of 128 tokens); measured
// 0.0033.
constexpr double kEmulatedKldBound = 0.01;

class DeviceRunE2E : public E2E {
 protected:
  void SetUp() override {
    E2E::SetUp();
    // The board shares this machine's architecture: its worker is this machine's own unless a
    // portable build was made (scripts/build-worker.sh x86_64); the tests pin the former.
    setenv("PIPETTE_WORKERS_DIR_X86_64", "/nonexistent/pipette-no-portable-worker", 1);
    const std::string missing = SshBoard::Missing();
    ASSERT_TRUE(missing.empty()) << missing;
    board_ = std::make_unique<SshBoard>();
    ASSERT_TRUE(board_->ready()) << "the board did not come up";
  }
  void TearDown() override {
    unsetenv("PIPETTE_WORKERS_DIR_X86_64");
    board_.reset();
    E2E::TearDown();
  }

  // The board's entry under devices:, as a user writes it.
  std::string BoardEntry() const {
    const auto t = board_->Target();
    return fmt::format(
        "  - name: board\n"
        "    ssh:\n"
        "      host: {}\n"
        "      user: root\n"
        "      key: {}\n"
        "      workdir: {}\n"
        "      ssh_options: [StrictHostKeyChecking=no, UserKnownHostsFile=/dev/null, "
        "LogLevel=ERROR]\n"
        "      alive_interval: 1\n"
        "      alive_count_max: 2\n",
        t.host, t.key_file, t.workdir);
  }

  std::unique_ptr<SshBoard> board_;
};

TEST_F(DeviceRunE2E, BoardCellsAreMeasuredThereStoredWithItsFingerprintAndStagedOnce) {
  const auto ex = Write("ex.yaml",
                        "models: [smollm2-135m-instruct-q4_1]\n"
                        "devices:\n  - local\n" +
                            BoardEntry() +
                            "params: {threads: 1}\n"
                            "tests: [pp16, tg8]\n"
                            "quality:\n  ppl: {chunks: 2}\n"
                            "  kld: {reference: smollm2-135m-instruct-q4_1, chunks: 1}\n"
                            "repetitions: 2\n");
  // With the memory bandwidth probe: staged on the board beside the worker, and run there.
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.err.find("device board: 3 file(s) sent"), std::string::npos) << o.err;
  const json report = ReportJson();
  const json& results = report["results"];
  // The same worker build, the same weights, one thread: the board's perplexity is this
  // machine's to the last digit.
  const double ppl_here = Value(results, 1, "ppl", "ppl");
  const double ppl_board = Value(results, 2, "ppl", "ppl");
  EXPECT_GT(ppl_here, 1.0);
  EXPECT_DOUBLE_EQ(ppl_here, ppl_board);
  // kld: the board's logits, streamed home as binary frames through ssh, against the reference
  // worker on this machine: the same logits, so no divergence.
  EXPECT_NEAR(Value(results, 2, "kld", "kld_mean"), 0.0, 1e-9);
  EXPECT_NEAR(Value(results, 2, "kld", "kld_max"), 0.0, 1e-9);
  EXPECT_GT(Value(results, 2, "tg8", "throughput"), 0.0);
  const json* here = Find(results, 1, "tg8", "throughput");
  const json* there = Find(results, 2, "tg8", "throughput");
  ASSERT_TRUE(here && there);
  EXPECT_EQ((*there)["device"].get<std::string>().rfind("board: ", 0), 0u) << (*there)["device"];
  EXPECT_EQ((*here)["device"].get<std::string>().find("board"), std::string::npos);
  EXPECT_EQ((*there)["emulated"], false);
  // The board's own environment: its fingerprint, read on it, with the entry's name and address.
  auto st = pipette::store::Store::Open(Store());
  ASSERT_TRUE(st.ok());
  auto cells = (*st)->Cells(1);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 2u);
  EXPECT_EQ((*cells)[1].key.substr((*cells)[1].key.size() - 13), ",device=board");
  ASSERT_TRUE((*cells)[1].environment_id.has_value());
  auto env = (*st)->Environment(*(*cells)[1].environment_id);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->facts["device"]["name"], "board");
  EXPECT_EQ(env->facts["device"]["kind"], "ssh");
  EXPECT_EQ(env->facts["device"]["address"], "ssh root@" + board_->Target().host + ":22");
  EXPECT_TRUE(env->facts["cpu_model"].is_string());
  // Read there, not here: the board has a host name of its own.
  EXPECT_EQ(env->facts["hostname"], SshBoard::kHostname);
  auto run = (*st)->Run(1);
  ASSERT_TRUE(run.ok());
  auto here_env = (*st)->Environment(run->environment_id);
  ASSERT_TRUE(here_env.ok());
  EXPECT_NE(here_env->facts["hostname"], SshBoard::kHostname);
  EXPECT_EQ((*cells)[1].runtime_build["isa"]["compiled_for"], "x86_64");
  // Each device's bandwidth measured on it by pipette-probe, and each tg figure held against its
  // own device's: bw_util = t/s x bytes per token / that bandwidth.
  for (const auto* facts : {&env->facts, &here_env->facts}) {
    ASSERT_TRUE((*facts)["memory_bandwidth"].contains("triad_bytes_per_s"))
        << (*facts)["memory_bandwidth"];
    EXPECT_GT((*facts)["memory_bandwidth"]["triad_bytes_per_s"].get<double>(), 0);
  }
  for (int cell : {1, 2}) {
    const auto& facts = cell == 1 ? here_env->facts : env->facts;
    const double triad = facts["memory_bandwidth"]["triad_bytes_per_s"].get<double>();
    const double bytes = Value(results, cell, "tg8", "bytes_per_token");
    EXPECT_GT(bytes, 96e6);  // SmolLM2's weights at least
    const json* util = Find(results, cell, "tg8", "bw_util");
    ASSERT_TRUE(util) << cell;
    std::vector<double> tps = (*Find(results, cell, "tg8", "throughput"))["samples"];
    std::vector<double> utils = (*util)["samples"];
    ASSERT_EQ(utils.size(), tps.size());
    for (size_t i = 0; i < tps.size(); ++i) EXPECT_NEAR(utils[i], tps[i] * bytes / triad, 1e-12);
  }
  // The worker's memory reading counts swapped pages (VmRSS + VmSwap sampled after each request);
  // nothing swaps here, so peak RSS is VmHWM.
  auto samples = (*st)->Samples((*cells)[1].id);
  ASSERT_TRUE(samples.ok());
  int64_t hwm = -1;
  for (const auto& s : *samples) {
    if (s.test != "memory") continue;
    hwm = s.raw["hwm"].get<int64_t>();
    ASSERT_TRUE(s.raw.contains("footprint_peak")) << s.raw.dump();
    EXPECT_LE(s.raw["footprint_peak"].get<int64_t>(), s.raw["hwm"].get<int64_t>());
    EXPECT_EQ(s.raw["swap"], 0);
  }
  ASSERT_GT(hwm, 0);
  EXPECT_DOUBLE_EQ(Value(results, 2, "memory", "peak_rss"), double(hwm));
  st->reset();
  // `pipette env` reads the board itself.
  Output env_out = Pipette({"env", ex.string(), "--device", "board", "--json"});
  ASSERT_EQ(env_out.code, 0) << env_out.err;
  const json board_env = json::parse(env_out.out);
  EXPECT_EQ(board_env["device"]["name"], "board");
  EXPECT_EQ(board_env["fingerprint_id"], env->fingerprint_id);
  EXPECT_TRUE(board_env["conditions"].is_object()) << env_out.out;
  EXPECT_GT(board_env["memory_bandwidth"].value("triad_bytes_per_s", 0.0), 0) << env_out.out;
  Output typo = Pipette({"env", ex.string(), "--device", "bord"});
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find("no device 'bord' in its devices (local, board) (did you mean 'board'?)"),
            std::string::npos)
      << typo.err;
  // Side by side.
  Output vary = Pipette({"report", "--store", Store(), "--vary", "device"});
  ASSERT_EQ(vary.code, 0) << vary.err;
  EXPECT_NE(vary.out.find("board: "), std::string::npos) << vary.out;

  // Again: the worker and the model are on the board already, found by their SHA-256.
  Output again = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(again.code, 0) << again.out << again.err;
  EXPECT_NE(again.err.find("device board: 0 file(s) sent, 2 found there already by SHA-256"),
            std::string::npos)
      << again.err;
  EXPECT_TRUE(board_->NoneLeft("pipette-worker", seconds(15)));
}

// The llama.cpp worker cross-built for aarch64 (scripts/build-worker.sh aarch64: static,
// ARMv8.2-A) runs under qemu-aarch64 on a board whose own shell is x86-64: real aarch64 code on
// the real model. Its cells are labelled emulated everywhere, record the instruction set the
// worker ran and the host it emulated on, and its quality agrees with this machine's x86-64
// kernels within the bound BENCHMARKS.md measured ("Devices").
// A tier of the board: the board's own cgroups (made through its shell) limit the worker there,
// as they do on this machine (tier_e2e_test.cc): its quota throttles, its cpuset is the worker's
// affinity, its memory cap makes a cell `oom`.
TEST_F(DeviceRunE2E, ATierOfTheBoardLimitsTheWorkerThere) {
  for (const char* c : {"/sys/fs/cgroup/memory", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuset"}) {
    if (::access(c, W_OK) != 0) {
      GTEST_SKIP() << "tiers need cgroup v1's cpu, cpuset and memory controllers writable on the "
                      "board: "
                   << c;
    }
  }
  // The board is this machine in other namespaces: its cgroups are this machine's.
  auto pipette_cgroups = [] {
    size_t n = 0;
    for (const char* c : {"memory", "cpu", "cpuset"}) {
      std::error_code ec;
      for (const auto& e : fs::recursive_directory_iterator(fs::path("/sys/fs/cgroup") / c, ec)) {
        if (e.is_directory() && e.path().filename().string().starts_with("pipette-")) ++n;
      }
    }
    return n;
  };
  const size_t before = pipette_cgroups();
  auto entry = [&](const std::string& name, const std::string& tier) {
    std::string e = BoardEntry();
    e.replace(e.find("name: board"), 11, "name: " + name + "\n    tier: " + tier);
    return e;
  };
  const auto ex = Write("ex.yaml",
                        "models: [smollm2-135m-instruct-q4_1]\n"
                        "devices:\n" +
                            entry("board-low", "{cpus: [0], cpu_quota: 0.3}") +
                            entry("board-tiny", "{memory: 48MiB}") +
                            "params: {threads: 1, n_ctx: 256, use_mmap: false}\n"
                            "tests: [tg8]\n"
                            "repetitions: 2\n"
                            "warmup: 0\n");
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  EXPECT_EQ(o.code, 1) << o.out << o.err;  // board-tiny's cell is oom
  auto low = Samples(1, "tier");
  ASSERT_EQ(low.size(), 1u) << o.err;
  EXPECT_GT(low[0].raw["end"]["cpu.nr_throttled"].get<int64_t>(), 0) << low[0].raw.dump();
  EXPECT_EQ(low[0].raw["end"]["worker.cpus_allowed_list"], "0");
  auto st = pipette::store::Store::Open(Store());
  ASSERT_TRUE(st.ok());
  auto cells = (*st)->Cells(1);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 2u);
  EXPECT_EQ((*cells)[0].status, "ok") << (*cells)[0].error;
  EXPECT_EQ((*cells)[1].status, "oom") << (*cells)[1].error;
  Output md = Pipette({"report", "--store", Store(), "--format", "md"});
  EXPECT_NE(md.out.find("board-low: "), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("(emulated tier: cpus 0, quota 0.3 CPU)"), std::string::npos) << md.out;
  EXPECT_EQ(pipette_cgroups(), before);  // each worker's cgroups removed on the board
}

TEST_F(DeviceRunE2E, TheAarch64WorkerOnAnEmulatedBoardAgreesWithThisMachine) {
  const fs::path arm_worker = fs::path(kSource) / "build-aarch64" / "pipette-worker-llama";
  ASSERT_TRUE(fs::exists(arm_worker))
      << "run scripts/build-worker.sh aarch64 first (make test does)";
  std::string entry = BoardEntry();
  entry.replace(entry.find("name: board"), 11, "name: arm");
  entry += "      arch: aarch64\n      emulator: [qemu-aarch64]\n";
  const auto ex =
      Write("ex.yaml",
            "models: [smollm2-135m-instruct-q4_1]\n"
            "devices:\n  - local\n" +
                entry +
                "params: {threads: 2}\n"
                "tests: [pp16, tg4]\n"
                "quality:\n  ppl: {chunks: 2, n_ctx: 128}\n"
                "  kld: {reference: smollm2-135m-instruct-q4_1, chunks: 2, n_ctx: 128}\n"
                "repetitions: 1\n"
                "warmup: 0\n");
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  // The table says so: the device column and the footnote.
  EXPECT_NE(o.out.find("arm: aarch64 emulated by qemu-aarch64 on "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("emulated: the worker ran under an emulator"), std::string::npos);
  const json report = ReportJson();
  const json& results = report["results"];
  const json* there = Find(results, 2, "tg4", "throughput");
  ASSERT_NE(there, nullptr);
  EXPECT_EQ((*there)["emulated"], true);
  EXPECT_EQ(Find(results, 1, "tg4", "throughput")->at("emulated"), false);
  EXPECT_EQ((*there)["runtime_build"]["isa"]["compiled_for"], "aarch64");
  EXPECT_EQ((*there)["runtime_build"]["isa"]["machine"], "aarch64");  // as qemu tells it
  EXPECT_FALSE((*there)["runtime_build"]["isa"]["hwcap_names"].empty());
  // CSV too.
  Output csv = Pipette({"report", "--store", Store(), "--format", "csv"});
  EXPECT_NE(csv.out.find("aarch64 emulated by qemu-aarch64"), std::string::npos);
  auto st = pipette::store::Store::Open(Store());
  ASSERT_TRUE(st.ok());
  auto cells = (*st)->Cells(1);
  ASSERT_TRUE(cells.ok());
  auto env = (*st)->Environment(*(*cells)[1].environment_id);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->facts["emulated"]["arch"], "aarch64");
  EXPECT_EQ(env->facts["emulated"]["emulator"], "qemu-aarch64");
  EXPECT_EQ(env->facts["emulated"]["host_arch"], "x86_64");  // the host it emulated on
  EXPECT_EQ(env->facts["arch"], "x86_64");
  st->reset();
  // Quality: the same weights through NEON kernels instead of AVX2 ones.
  const double here = Value(results, 1, "ppl", "ppl");
  const double arm = Value(results, 2, "ppl", "ppl");
  EXPECT_GT(here, 1.0);
  EXPECT_LT(std::abs(arm - here) / here, kEmulatedPplBound) << here << " vs " << arm;
  // The most direct comparison: the aarch64 kernels' distributions against the x86-64 reference
  // worker's, token by token (its logits streamed home as frames from under the emulator).
  const double kld_arm = Value(results, 2, "kld", "kld_mean");
  std::fprintf(stderr, "ppl here %.6f, on the emulated board %.6f; kld_mean there %.3g\n", here,
               arm, kld_arm);
  EXPECT_GT(kld_arm, 0.0);  // other kernels: not the same bits
  EXPECT_LT(kld_arm, kEmulatedKldBound);
  EXPECT_TRUE(board_->NoneLeft("pipette-worker", seconds(15)));
  EXPECT_TRUE(board_->NoneLeft("qemu-aarch64", seconds(15)));
}

// The board first, generating for a while; its link drops: that cell fails with the link as
// its reason, what it measured before stays, the run goes on with this machine's cell, and the
// worker on the board is gone.
TEST_F(DeviceRunE2E, ALinkThatDropsMidCellFailsThatCellAndTheRunGoesOn) {
  const auto ex = Write("ex.yaml",
                        "models: [smollm2-135m-instruct-q4_1]\n"
                        "devices:\n" +
                            BoardEntry() +
                            "  - local\n"
                            "params: {threads: 1}\n"
                            "tests: [pp16, tg1000]\n"
                            "repetitions: 1\n"
                            "warmup: 0\n");
  StartPipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  // Dropped once the board's pp16 is stored, while it generates 1000 tokens (over ten seconds
  // here; about one on a machine ten times as fast, against a poll of 0.2 s).
  auto pp_stored = [&] {
    auto look = pipette::store::Store::Open(Store(), pipette::store::OpenMode::kReadOnly);
    if (!look) return false;
    auto cells = (*look)->Cells(1);
    if (!cells || cells->empty()) return false;
    auto samples = (*look)->Samples((*cells)[0].id);
    if (!samples) return false;
    for (const auto& sample : *samples) {
      if (sample.test == "pp16" && !sample.warmup) return true;
    }
    return false;
  };
  const auto end = std::chrono::steady_clock::now() + seconds(120);
  while (!pp_stored() && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_FALSE(board_->Processes("pipette-worker").empty()) << ReadFile(dir_ / "stderr");
  board_->SetLink(false);
  const int code = Wait(started_.back());
  EXPECT_EQ(code, 1) << ReadFile(dir_ / "stderr");  // a failed cell
  EXPECT_TRUE(board_->NoneLeft("pipette-worker", seconds(15)));
  board_->SetLink(true);
  auto st = pipette::store::Store::Open(Store());
  ASSERT_TRUE(st.ok());
  auto cells = (*st)->Cells(1);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 2u);
  EXPECT_EQ((*cells)[0].status, "failed");
  EXPECT_EQ((*cells)[0].error.rfind("link to device 'board' dropped: ", 0), 0u)
      << (*cells)[0].error;
  EXPECT_EQ((*cells)[1].status, "ok") << (*cells)[1].error;
  st->reset();
  EXPECT_EQ(Samples((*cells)[0].id, "pp16").size(), 1u);  // measured before the drop: kept
}

// `pipette run` killed (SIGKILL: no handler runs) while its board cell generates: its ssh dies
// with it, the board's session ends, and the worker with it.
TEST_F(DeviceRunE2E, AKilledPipetteRunLeavesNothingRunningOnTheBoard) {
  const auto ex = Write("ex.yaml",
                        "models: [smollm2-135m-instruct-q4_1]\n"
                        "devices:\n" +
                            BoardEntry() +
                            "params: {threads: 1}\n"
                            "tests: [tg3000]\n"
                            "repetitions: 1\n"
                            "warmup: 0\n");
  const pid_t pid = StartPipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  const auto end = std::chrono::steady_clock::now() + seconds(120);
  while (board_->Processes("pipette-worker").empty() && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(board_->Processes("pipette-worker").empty()) << ReadFile(dir_ / "stderr");
  std::this_thread::sleep_for(seconds(3));
  ::kill(pid, SIGKILL);
  Wait(pid);
  EXPECT_TRUE(board_->NoneLeft("pipette-worker", seconds(15)));
}

}  // namespace
}  // namespace pipette_e2e
