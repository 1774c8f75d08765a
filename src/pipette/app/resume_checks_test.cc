#include "pipette/app/resume_checks.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "pipette/config/experiment_testing.h"
#include "pipette/env/fingerprint.h"
#include "pipette/util/sha256.h"
#include "pipette/util/temp_dir.h"

namespace pipette::app {
namespace {
namespace fs = std::filesystem;

const std::string kText =
    "models: [smollm2-135m-instruct-q4_1]\nparams: {threads: [1, 2]}\ntests: [tg4]\n";

class SameExperiment : public config::ExperimentTest {
 protected:
  // The run record a run of `text` made on the machine of opts_.
  store::RunRecord RunOf(const std::string& text) {
    auto ex = Parse(text);
    EXPECT_TRUE(ex.ok()) << ex.error().message;
    store::RunRecord run;
    run.id = 3;
    run.experiment_path = File();
    run.config_text = text;
    run.config_hash = ex->Hash();
    run.config_canonical = ex->Resolved().dump();
    run.pipette_version = "0.1.0";
    run.pipette_commit = "abc1234";
    return run;
  }
  std::string Refusal(const store::RunRecord& run, const std::string& text) {
    auto ex = Parse(text);
    EXPECT_TRUE(ex.ok()) << ex.error().message;
    const Status st = CheckSameExperiment(run, *ex, registry_);
    EXPECT_FALSE(st.ok());
    if (st.ok()) return "";
    EXPECT_EQ(st.error().exit_code, 2);
    return st.error().message;
  }
};

TEST_F(SameExperiment, TheSameFileOnTheSameMachineResumes) {
  const store::RunRecord run = RunOf(kText);
  EXPECT_TRUE(CheckSameExperiment(run, *Parse(kText), registry_).ok());
  // Comments and key order are no change; neither is a machine-derived value.
  opts_.machine.logical_cpus = 64;
  const std::string reordered =
      "# again\ntests: [tg4]  # one test\nparams:\n  threads: [1, 2]\n"
      "models: [smollm2-135m-instruct-q4_1]\n";
  EXPECT_TRUE(CheckSameExperiment(run, *Parse(reordered), registry_).ok());
}

TEST_F(SameExperiment, AnotherExperimentIsRefusedSayingWhatDiffers) {
  const store::RunRecord run = RunOf(kText);
  EXPECT_EQ(Refusal(run, kText + "seed: 7\n"),
            "cannot resume run 3: " + File() +
                " is not the experiment it ran (seed: 42 then, 7 now). Start a new run instead");
  // A default written out changes what the file says, not what it resolves to.
  EXPECT_EQ(Refusal(run, kText + "repetitions: 5\n"),
            "cannot resume run 3: " + File() +
                " is not the experiment it ran (repetitions: (none) then, 5 now). Start a new run "
                "instead");
  // The same file, its models found elsewhere: refused, as a run measures one set of files.
  fs::create_symlink(opts_.models_dir, dir_ / "models-elsewhere");
  opts_.models_dir = dir_ / "models-elsewhere";
  const std::string moved = Refusal(run, kText);
  EXPECT_EQ(moved.rfind("cannot resume run 3: " + File() +
                            " is the experiment it ran, but it resolves to other files or values "
                            "here now (models: ",
                        0),
            0u)
      << moved;
}

TEST_F(SameExperiment, ARunRecordedBeforeTheHashCoveredWhatIsWrittenIsRefused) {
  // Then config_hash was the SHA-256 of the resolved experiment it recorded.
  store::RunRecord run = RunOf(kText);
  auto resolved = nlohmann::json::parse(run.config_canonical);
  resolved.erase("machine");
  run.config_canonical = resolved.dump();
  run.config_hash = Sha256Hex(run.config_canonical);
  const std::string want =
      "cannot resume run 3: it was recorded by Pipette 0.1.0 (commit abc1234), whose "
      "config_hash is that of the resolved experiment; this Pipette's covers what the file "
      "writes. One run is measured by one build: resume it with that build, or start a new run";
  EXPECT_EQ(Refusal(run, kText), want);
  run.config_canonical.clear();  // store schema 1 recorded none
  EXPECT_EQ(Refusal(run, kText), want);
}

// Resuming a run with cells on a board: the board opened now must be the one that measured its
// earlier cells (the same hardware fingerprint), else its cells are refused with both named.
TEST(SameDevice, ABoardIsCheckedAgainstTheEnvironmentItsEarlierCellsRecorded) {
  const TempDir dir("pipette-same-device");
  auto store = store::Store::Open(dir / "store.db");
  ASSERT_TRUE(store.ok()) << store.error().message;
  const nlohmann::json here = {{"cpu_model", "Host CPU"}, {"arch", "x86_64"}};
  const nlohmann::json board = {{"cpu_model", "Cortex-A76"},
                                {"arch", "aarch64"},
                                {"device", {{"name", "board"}, {"kind", "ssh"}}}};
  auto here_id = (*store)->AddEnvironment({0, env::FingerprintId(here), here});
  auto board_id = (*store)->AddEnvironment({0, env::FingerprintId(board), board});
  ASSERT_TRUE(here_id.ok() && board_id.ok());

  RunToResume r;
  r.run.id = 7;
  r.run.environment_id = *here_id;
  r.cells.resize(3);
  r.cells[1].environment_id = *board_id;
  r.cells[2].environment_id = *here_id;  // this machine's, named explicitly: not a device
  auto then = DeviceEnvironmentsOf(**store, r);
  ASSERT_TRUE(then.ok()) << then.error().message;
  ASSERT_EQ(then->size(), 1u);
  ASSERT_TRUE(then->count("board"));
  EXPECT_EQ(then->at("board").fingerprint_id, env::FingerprintId(board));

  // The same board (its conditions and address may change; the hardware does not): resumed.
  nlohmann::json now = board;
  now["device"]["address"] = "10.0.0.9:22";
  EXPECT_TRUE(CheckSameDevice("board", 7, then->at("board"), now).ok());
  // Another board under the same name: refused, naming both.
  now["cpu_model"] = "Cortex-A55";
  const Status other = CheckSameDevice("board", 7, then->at("board"), now);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().message,
            fmt::format("device 'board' is not the one run 7 measured on (fingerprint {}, "
                        "Cortex-A76 then; {}, Cortex-A55 now): its cells are not measured. Resume "
                        "the run with that device, or start a new run",
                        env::FingerprintId(board), env::FingerprintId(now)));
}

}  // namespace
}  // namespace pipette::app
