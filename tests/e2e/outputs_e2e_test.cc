// End-to-end: the files commands write, and a store that cannot be written. An output that is an
// input (the store, the experiment, a model, a compared side) or another output is refused before
// anything is written; an export that fails is named and the run exits 1; a store another process
// holds locked, or on a full disk, is refused with exit code 2 saying so; what killed writers left
// is cleaned; suggested commands quote their paths. Real build/pipette on the bundled model, one
// tiny cell (tg4, one repetition).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fixture.h"
#include "pipette/util/sha256.h"

namespace pipette_e2e {
namespace {

class Outputs : public E2E {
 protected:
  fs::path Tiny(const std::string& name = "tiny.yaml") {
    return Write(name,
                 "models: [smollm2-135m-instruct-q4_1]\nparams: {threads: 1}\ntests: [tg4]\n"
                 "repetitions: 1\nwarmup: 0\n");
  }
  // A store with one run of the tiny experiment.
  void MakeStore(const fs::path& ex) {
    Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
    ASSERT_EQ(o.code, 0) << o.err;
  }
  static std::string Hash(const fs::path& p) { return pipette::Sha256Hex(ReadFile(p)); }
  // A pid no process can have: above the kernel's largest.
  static int GonePid() {
    const std::string max = ReadFile("/proc/sys/kernel/pid_max");
    return (max.empty() ? 4194304 : std::stoi(max)) + 1;
  }
};

TEST_F(Outputs, AnOutputThatIsAnInputOrAnotherOutputIsRefusedBeforeAnythingIsWritten) {
  const fs::path ex = Tiny();
  MakeStore(ex);
  const std::string store_hash = Hash(Store());
  const std::string ex_text = ReadFile(ex);
  // The same store through another spelling.
  const std::string same_store = (dir_ / "." / "results.db").string();
  auto refused = [&](const std::vector<std::string>& args, const std::string& says) {
    Output o = Pipette(args);
    EXPECT_EQ(o.code, 2) << args[0] << " " << o.err;
    EXPECT_NE(o.err.find(says), std::string::npos) << o.err;
    EXPECT_EQ(Hash(Store()), store_hash) << "the store was written";
    EXPECT_EQ(ReadFile(ex), ex_text) << "the experiment was written";
  };
  refused({"run", ex.string(), "--store", Store(), "--no-bandwidth", "--export-json", same_store},
          "--export-json " + same_store + ": that is the store (" + Store() + ")");
  refused({"run", ex.string(), "--store", Store(), "--export", "md=" + ex.string()},
          "--export md=" + ex.string() + ": that is the experiment");
  refused({"run", ex.string(), "--store", Store(), "--export-md", (dir_ / "r.md").string(),
           "--export", "md=" + (dir_ / "sub" / ".." / "r.md").string()},
          "--export-md " + (dir_ / "r.md").string() + " writes that file too");
  refused({"run", ex.string(), "--store", Store(), "--export-csv", Store() + "-wal"},
          "the store (wal file)");
  // A model through a symbolic link (a dry run: nothing here would write it anyway).
  fs::create_symlink(kModel, dir_ / "model-link.gguf");
  refused({"run", ex.string(), "--store", Store(), "--dry-run", "--export-json",
           (dir_ / "model-link.gguf").string()},
          "that is the model smollm2-135m-instruct-q4_1");
  EXPECT_TRUE(fs::is_symlink(dir_ / "model-link.gguf"));
  // A dataset the experiment reads (quality: mc) is an input too.
  const fs::path items = dir_ / "items.jsonl";
  const std::string items_text =
      "{\"id\": \"a\", \"question\": \"q?\", \"choices\": [\"x\", \"y\"], \"answer\": 0}\n";
  std::ofstream(items) << items_text;
  const fs::path mc = dir_ / "mc.yaml";
  std::ofstream(mc) << "models: [smollm2-135m-instruct-q4_1]\nquality:\n  mc: {dataset: " +
                           items.string() + "}\n";
  refused({"run", mc.string(), "--store", Store(), "--dry-run", "--export-json", items.string()},
          "--export-json " + items.string() + ": that is a file the experiment reads (");
  EXPECT_EQ(ReadFile(items), items_text) << "the dataset was written";
  refused({"report", "--store", Store(), "-o", same_store},
          "-o " + same_store + ": that is the store");
  refused({"predict", "--store", Store(), "-o", same_store}, "that is the store");
  refused({"select", "--store", Store(), "--profile", "interactive", "-o", same_store},
          "that is the store");
  refused({"compare", Store(), Store() + ":1", "-o", same_store}, "that is the baseline");
  refused({"reproduce", "1", "--store", Store(), "-o", same_store}, "that is the store");
  refused({"reproduce", "1", "--store", Store(), "-o", ex.string()},
          "that is the run's experiment file");
  EXPECT_FALSE(fs::exists(dir_ / "r.md"));
  // One run only: nothing was measured.
  Output runs = Pipette({"report", "--store", Store(), "--all", "--format", "json"});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_EQ(json::parse(runs.out)["runs"].size(), 1u);
}

TEST_F(Outputs, ADirectoryOrAnUnwritablePlaceIsRefusedWithExitCode2) {
  const fs::path ex = Tiny();
  MakeStore(ex);
  Output dir = Pipette({"report", "--store", Store(), "-o", dir_.string()});
  EXPECT_EQ(dir.code, 2) << dir.err;
  EXPECT_NE(dir.err.find(dir_.string() + " is a directory"), std::string::npos) << dir.err;
  EXPECT_EQ(dir.err.find("Success"), std::string::npos) << dir.err;
  // An export under a regular file: refused before anything is measured.
  std::ofstream(dir_ / "plain") << "x";
  const std::string under = (dir_ / "plain" / "r.md").string();
  Output run = Pipette({"run", ex.string(), "--store", (dir_ / "new.db").string(), "--no-bandwidth",
                        "--export-md", under});
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_NE(run.err.find("--export-md " + under + ": cannot write"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir_ / "new.db"));
}

TEST_F(Outputs, EveryExportIsTriedAndAFailedOneIsNamedWithExitCode1) {
  const fs::path ex = Tiny();
  // A file on a full disk: a link to /dev/full, which takes no byte (ENOSPC).
  fs::create_symlink("/dev/full", dir_ / "full.json");
  const fs::path md = dir_ / "a.md", csv = dir_ / "c.csv";
  Output o =
      Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth", "--export-md", md.string(),
               "--export-json", (dir_ / "full.json").string(), "--export", "csv=" + csv.string()});
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find("error: report (json) not written: cannot write " +
                       (dir_ / "full.json").string() + ": No space left on device"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("report (json): "), std::string::npos) << "claimed written: " << o.err;
  EXPECT_NE(o.err.find("report (md): " + md.string()), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("report (csv): " + csv.string()), std::string::npos) << o.err;
  EXPECT_NE(ReadFile(md).find("tg4"), std::string::npos);
  EXPECT_NE(ReadFile(csv).find("tg4"), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(dir_ / "full.json"));
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  // The measurements are kept.
  EXPECT_EQ(ReportJson()["runs"][0]["status"], "done");
}

TEST_F(Outputs, AStoreAnotherProcessHoldsLockedIsRefusedSayingWho) {
  const fs::path ex = Tiny();
  MakeStore(ex);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(Store().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("cannot write to the store " + Store() +
                       ": the store is locked by another process (SQLITE_BUSY after 5 s)"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("held open by pid " + std::to_string(getpid())), std::string::npos) << o.err;
  Output runs = Pipette({"report", "--store", Store(), "--all", "--format", "json"});
  ASSERT_EQ(runs.code, 0) << runs.err;
  EXPECT_EQ(json::parse(runs.out)["runs"].size(), 1u) << "no run was written";
}

// A real full disk: a 64 KiB tmpfs in a user and mount namespace of the run's own (no root
// needed where the kernel allows user namespaces; skipped where it does not).
TEST_F(Outputs, AStoreOnAFullDiskIsRefusedSayingSoWithExitCode2) {
  const fs::path ex = Tiny();
  const fs::path mnt = dir_ / "small";
  fs::create_directories(mnt);
  Output probe = Program(
      {"unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs '" + mnt.string() + "'"});
  if (probe.code != 0) GTEST_SKIP() << "no user namespaces here: " << probe.out;
  const std::string store = (mnt / "s.db").string();
  // A new store on a disk filled to its last 4 KiB; then a store made on an emptier disk, run
  // again once the disk is full. Each run's exit code follows it as "rc=N", all on one stream.
  Output o = Program({"unshare", "-rm", "sh", "-c",
                      "exec 2>&1; mount -t tmpfs -o size=256k tmpfs \"$1\" || exit 9; "
                      "head -c 258048 /dev/zero > \"$1/filler\"; "
                      "\"$2\" run \"$3\" --store \"$4\" --no-bandwidth; echo \"rc=$?\"; "
                      "ls \"$1\"; rm \"$1/filler\"; echo second; "
                      "\"$2\" run \"$3\" --store \"$4\" --no-bandwidth > /dev/null 2>&1 || exit 8; "
                      "head -c 262144 /dev/zero > \"$1/filler\" 2> /dev/null; "
                      "\"$2\" run \"$3\" --store \"$4\" --no-bandwidth; echo \"rc=$?\"",
                      "sh", mnt.string(), kPipette, ex.string(), store});
  ASSERT_EQ(o.code, 0) << o.out;
  const size_t second = o.out.find("second");
  ASSERT_NE(second, std::string::npos) << o.out;
  const std::string made = o.out.substr(0, second), full = o.out.substr(second);
  EXPECT_NE(made.find("rc=2"), std::string::npos) << made;
  EXPECT_NE(made.find("cannot write to the store " + store + ": the disk is full"),
            std::string::npos)
      << made;
  EXPECT_EQ(made.find("migrate"), std::string::npos) << made;
  EXPECT_EQ(made.find("s.db"), made.rfind("s.db")) << "no store file is left: " << made;
  EXPECT_NE(full.find("rc=2"), std::string::npos) << full;
  EXPECT_NE(full.find("the disk is full"), std::string::npos) << full;
  EXPECT_EQ(full.find("[cell 1/1]"), std::string::npos) << "measured: " << full;
}

TEST_F(Outputs, WhatAKilledWriterLeftIsRemovedByTheNextWriter) {
  const fs::path ex = Tiny();
  MakeStore(ex);
  const std::string gone = std::to_string(GonePid());
  const fs::path out = dir_ / "r.md";
  const fs::path left_tmp = dir_ / ("r.md.tmp" + gone);
  const fs::path left_repro = dir_ / (".tiny.reproduce-1-" + gone + ".yaml");
  const fs::path live_repro = dir_ / (".tiny.reproduce-1-1.yaml");  // pid 1 runs
  for (const fs::path& p : {left_tmp, left_repro, live_repro}) std::ofstream(p) << "half";
  Output o = Pipette({"report", "--store", Store(), "-o", out.string()});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_FALSE(fs::exists(left_tmp));
  EXPECT_NE(ReadFile(out).find("tg4"), std::string::npos);
  // reproduce writes its experiment file beside the original when the original has changed.
  std::ofstream(ex, std::ios::app) << "# edited\n";
  Output r = Pipette({"reproduce", "1", "--store", Store(), "--no-bandwidth"});
  EXPECT_NE(r.code, 2) << r.err;
  EXPECT_FALSE(fs::exists(left_repro));
  EXPECT_TRUE(fs::exists(live_repro));
  for (const auto& e : fs::directory_iterator(dir_)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name.find(".tmp") == std::string::npos) << name;
    EXPECT_TRUE(name.find(".reproduce-") == std::string::npos || e.path() == live_repro) << name;
  }
}

TEST_F(Outputs, SuggestedCommandsQuoteAStorePathWithSpaces) {
  const fs::path ex = Tiny();
  const std::string store = (dir_ / "my results" / "s.db").string();
  Output o = Pipette({"run", ex.string(), "--store", store, "--no-bandwidth"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("more: build/pipette report --store '" + store + "' --run 1"),
            std::string::npos)
      << o.err;
  // A report's warning on an interrupted run says how to resume it, the store quoted.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(store.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "UPDATE runs SET status = 'interrupted'", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  Output r = Pipette({"report", "--store", store, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("pipette run --resume 1 --store '" + store + "' measures the rest"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace pipette_e2e
