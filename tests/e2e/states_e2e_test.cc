// End-to-end: runs that end in a true state. Exports after the end, a controller killed with
// SIGKILL (abandoned, then resumed), a live run never marked, the machine-wide measuring lock,
// another Pipette measuring without it, runs recorded on another host, a store of the last
// release (migrated), and a store on a read-only file system. Real build/pipette, real worker,
// real model; the "other host" of one test is a row edited to name one (no second host here).
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "fixture.h"
#include "pipette/env/process.h"
#include "pipette/run/measure_lock.h"
#include "pipette/store/store.h"
#include "pipette/util/shell_quote.h"

namespace pipette_e2e {
namespace {

// Polls `done` every 100 ms for up to `seconds`. The default deadline is for events that come
// once a run gets there (a phase started, samples stored): generous, since a loaded machine may
// take many minutes; a passing test waits only as long as the event takes.
bool WaitUntil(const std::function<bool()>& done, double seconds = 900) {
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(int(seconds * 1000));
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

// One value straight from the SQLite file, bypassing Pipette (to see what is really stored).
std::string Sql(const std::string& db_path, const std::string& query) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, query.c_str(), -1, &st, nullptr) == SQLITE_OK) {
      while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); ++c) {
          const unsigned char* t = sqlite3_column_text(st, c);
          out += (c ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "NULL");
        }
        out += "\n";
      }
    } else {
      out = std::string("SQL error: ") + sqlite3_errmsg(db);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Gone, or ended and waiting to be reaped (a zombie measures nothing).
bool ProcessGone(int pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return stat.empty() || (close != std::string::npos && close + 2 < stat.size() &&
                          (stat[close + 2] == 'Z' || stat[close + 2] == 'X'));
}

class States : public E2E {
 protected:
  // A long single-cell run (tg16 x reps at 1 thread) to have something measuring.
  fs::path LongExperiment(const std::string& name, int reps = 60) {
    return Write(name,
                 "models: [smollm2-135m-instruct-q4_1]\nparams: {threads: 1}\ntests: "
                 "[tg16]\nrepetitions: " +
                     std::to_string(reps) + "\nwarmup: 0\n");
  }
  fs::path TinyExperiment(const std::string& name = "tiny.yaml") {
    return Write(name,
                 "models: [smollm2-135m-instruct-q4_1]\nparams: {threads: [1, 2]}\ntests: "
                 "[tg4]\nrepetitions: 2\nwarmup: 0\n");
  }
  std::string Err(const std::string& tag = "") { return ReadFile(dir_ / (tag + "stderr")); }
  int SamplesOf(int64_t cell_id, const std::string& test) {
    return std::stoi(Sql(Store(), "SELECT count(*) FROM samples WHERE cell_id = " +
                                      std::to_string(cell_id) + " AND test = '" + test + "'"));
  }
  // The worker pid the controller printed for its `n`th cell.
  int WorkerOf(const std::string& tag, int n) {
    std::smatch m;
    const std::regex re("\\[cell " + std::to_string(n) + "/\\d+\\].*\\(worker pid (\\d+)\\)");
    int pid = 0;
    WaitUntil([&] {
      const std::string err = Err(tag);
      if (std::regex_search(err, m, re)) pid = std::stoi(m[1]);
      return pid > 0;
    });
    return pid;
  }
};

TEST_F(States, ExportsAreRewrittenWithTheRunsFinalState) {
  const fs::path ex = TinyExperiment();
  const fs::path json_out = dir_ / "out.json", md_out = dir_ / "out.md";
  const fs::path sql_out = dir_ / "out.sql", jsonl_out = dir_ / "out.jsonl";
  // --export takes any registered format; an unknown one is refused before anything is written.
  Output bad = Pipette(
      {"run", ex.string(), "--store", Store(), "--export", "xml=" + (dir_ / "out.xml").string()});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--export xml="), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("unknown report format 'xml'"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(Store()));
  EXPECT_FALSE(fs::exists(dir_ / "out.xml"));
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth", "--export-json",
                      json_out.string(), "--export-md", md_out.string(), "--export",
                      "sql=" + sql_out.string(), "--export", "jsonl=" + jsonl_out.string()});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(ReadFile(sql_out).find("CREATE TABLE"), std::string::npos);
  std::istringstream jsonl(ReadFile(jsonl_out));
  int lines = 0;
  for (std::string line; std::getline(jsonl, line); ++lines) {
    EXPECT_TRUE(json::accept(line)) << line;
  }
  EXPECT_GT(lines, 0);
  EXPECT_NE(o.err.find("report (sql): " + sql_out.string()), std::string::npos) << o.err;
  json doc = json::parse(ReadFile(json_out));
  EXPECT_EQ(doc["runs"][0]["status"], "done");
  EXPECT_TRUE(doc["runs"][0]["finished_at"].is_string());
  EXPECT_EQ(doc["runs"][0]["lock"]["held"], true);
  EXPECT_TRUE(doc["warnings"].empty()) << doc["warnings"];
  EXPECT_EQ(ReadFile(md_out).find("warning: run"), std::string::npos);

  // Ctrl-C: the exports say interrupted, with the time it ended. The experiment's name has a
  // space: the command that goes on quotes it.
  const fs::path long_ex = LongExperiment("long run.yaml");
  const pid_t pid =
      StartPipette({"run", long_ex.string(), "--store", Store(), "--no-bandwidth", "--export-json",
                    json_out.string(), "--export-md", md_out.string()});
  ASSERT_TRUE(WaitUntil([&] { return Err().find("tg16: started") != std::string::npos; })) << Err();
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  EXPECT_EQ(Wait(pid), 130) << Err();
  doc = json::parse(ReadFile(json_out));
  ASSERT_EQ(doc["runs"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["id"], 2);
  EXPECT_EQ(doc["runs"][0]["status"], "interrupted");
  EXPECT_TRUE(doc["runs"][0]["finished_at"].is_string());
  EXPECT_EQ(doc["cells"][0]["status"], "interrupted");
  EXPECT_NE(ReadFile(md_out).find("warning: run 2 was interrupted"), std::string::npos)
      << ReadFile(md_out);
  EXPECT_NE(Err().find("resume: build/pipette run '" + long_ex.string() + "' --store " +
                       pipette::ShellQuote(Store()) + " --resume 2"),
            std::string::npos)
      << "says how to go on: " << Err();
}

// A run killed in the middle of a task resumes from the last stored item (issue 40 part 9; the
// ask of lm-evaluation-harness #2533): the items the cut-short cell stored are kept, the rest
// scored, and the figure is the one an uncut run gives.
TEST_F(States, AResumeGoesOnFromTheLastStoredItemOfATask) {
  const fs::path ex = Write("ex.yaml", R"(models: [smollm2-135m-instruct-q4_1]
params: {threads: 2}
quality:
  tasks: [{task: lambada, limit: 60}]
)");
  const pid_t pid = StartPipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_GT(WorkerOf("", 1), 0) << Err();
  ASSERT_TRUE(WaitUntil([&] { return SamplesOf(1, "task:lambada") >= 10; }));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  EXPECT_EQ(Wait(pid), 128 + SIGKILL);
  const int partial = SamplesOf(1, "task:lambada");
  ASSERT_GE(partial, 10);
  ASSERT_LT(partial, 60) << "the run ended before it was killed";
  Output resumed = Pipette({"run", "--store", Store(), "--resume", "1", "--no-bandwidth"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  // The new cell holds every item once; its info names what it took.
  EXPECT_EQ(SamplesOf(2, "task:lambada"), 60);
  const std::string info = Sql(Store(),
                               "SELECT raw FROM samples WHERE cell_id = 2 AND test = "
                               "'task_info'");
  EXPECT_EQ(json::parse(info)["resumed"], (json{{"cell_id", 1}, {"items", partial}})) << info;
  // The same figure as a run that was never cut.
  Output whole = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(whole.code, 0) << whole.err;
  auto acc = [&](const std::string& run) {
    Output rep = Pipette({"report", "--store", Store(), "--run", run, "--format", "json"});
    EXPECT_EQ(rep.code, 0) << rep.err;
    return Value(json::parse(rep.out)["results"], 1, "task:lambada", "acc");
  };
  EXPECT_DOUBLE_EQ(acc("1"), acc("2"));
}

TEST_F(States, AKilledControllerLeavesAnAbandonedRunThatResumeFinishes) {
  const fs::path ex = Write("ex.yaml", R"(models: [smollm2-135m-instruct-q4_1]
params:
  threads: [1, 2]
tests: [tg16]
repetitions: 30
warmup: 0
)");
  const pid_t pid = StartPipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  const int worker = WorkerOf("", 1);
  ASSERT_GT(worker, 0) << Err();
  ASSERT_TRUE(WaitUntil([&] { return SamplesOf(1, "tg16") >= 3; }));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  EXPECT_EQ(Wait(pid), 128 + SIGKILL);
  EXPECT_TRUE(WaitUntil([&] { return ProcessGone(worker); }, 10)) << "the worker dies with it";
  const int partial = SamplesOf(1, "tg16");
  ASSERT_GE(partial, 3);
  ASSERT_LT(partial, 30);
  ASSERT_EQ(Sql(Store(), "SELECT status FROM runs WHERE id = 1"), "running");

  // A report only reads: it shows the run abandoned and leaves the store as it was.
  Output rep = Pipette({"report", "--store", Store(), "--format", "json"});
  ASSERT_EQ(rep.code, 0) << rep.err;
  const json doc = json::parse(rep.out);
  EXPECT_EQ(doc["runs"][0]["status"], "abandoned");
  EXPECT_EQ(doc["cells"][0]["status"], "abandoned");
  EXPECT_NE(doc["warnings"][0].get<std::string>().find("--resume 1"), std::string::npos);
  EXPECT_EQ(Sql(Store(), "SELECT status FROM runs WHERE id = 1"), "running");
  Output dry = Pipette({"run", ex.string(), "--store", Store(), "--resume", "1", "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_NE(dry.out.find("2 of 2 cell(s) to measure"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("measured again from its start"), std::string::npos) << dry.out;
  EXPECT_EQ(Sql(Store(), "SELECT status FROM runs WHERE id = 1"), "running") << "a dry run writes";

  // Resume (the experiment file is the run's own): the cut cell is measured again from its
  // start; this resume is killed too, mid-cell, and the next one finishes.
  const pid_t resume_pid =
      StartPipette({"run", "--store", Store(), "--resume", "1", "--no-bandwidth"}, "r1-");
  ASSERT_TRUE(WaitUntil([&] { return SamplesOf(2, "tg16") >= 3; })) << Err("r1-");
  const int resume_worker = WorkerOf("r1-", 1);
  ASSERT_EQ(::kill(resume_pid, SIGKILL), 0);
  Wait(resume_pid);
  EXPECT_TRUE(WaitUntil([&] { return ProcessGone(resume_worker); }, 10));
  EXPECT_NE(Err("r1-").find("run 1 in " + Store() + " was left running by a Pipette that is gone"),
            std::string::npos)
      << Err("r1-");
  Output res = Pipette({"run", "--store", Store(), "--resume", "1", "--no-bandwidth"});
  ASSERT_EQ(res.code, 0) << res.err;
  EXPECT_EQ(
      Sql(Store(), "SELECT id, idx, status, ifnull(superseded_by, '') FROM cells ORDER BY id"),
      "1|0|superseded|2\n2|0|superseded|3\n3|0|ok|\n4|1|ok|");
  EXPECT_EQ(SamplesOf(1, "tg16"), partial) << "the partial samples stay";
  EXPECT_EQ(SamplesOf(3, "tg16"), 30);
  EXPECT_EQ(SamplesOf(4, "tg16"), 30);
  // No sample is stored twice: one per (cell, test, rep).
  EXPECT_EQ(Sql(Store(),
                "SELECT count(*) FROM (SELECT cell_id, test, rep, count(*) AS n FROM "
                "samples GROUP BY cell_id, test, rep HAVING n > 1)"),
            "0");
  EXPECT_EQ(Sql(Store(), "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(Sql(Store(), "SELECT status, resumes FROM runs"), "done|2");
  // The figures come from the complete cells only.
  const json after = ReportJson();
  int rows = 0;
  for (const json& r : after["results"]) {
    if (r["test"] != "tg16" || r["metric"] != "throughput") continue;
    ++rows;
    EXPECT_EQ(r["n"], 30);
    EXPECT_EQ(r["cell_status"], "ok");
  }
  EXPECT_EQ(rows, 2);
  ASSERT_EQ(after["cells"].size(), 4u);
  EXPECT_EQ(after["cells"][0]["status"], "superseded");
  EXPECT_EQ(after["cells"][0]["superseded_by"], 2);
  EXPECT_TRUE(after["warnings"].empty()) << after["warnings"];

  Output again = Pipette({"run", "--store", Store(), "--resume", "1"});
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("run 1 has nothing left to measure: 2 cell(s) complete"),
            std::string::npos)
      << again.err;
}

TEST_F(States, ALiveRunIsNeverMarkedAndASecondRunWaitsForTheMeasuringLock) {
  const fs::path a = LongExperiment("a.yaml", 20);
  const pid_t first = StartPipette({"run", a.string(), "--store", Store(), "--no-bandwidth"}, "a-");
  ASSERT_TRUE(WaitUntil([&] { return Err("a-").find("tg16: started") != std::string::npos; }))
      << Err("a-");
  // Held still while the checks run: alive, measuring nothing, holding the lock.
  ASSERT_EQ(::kill(first, SIGSTOP), 0);
  Output rep = Pipette({"report", "--store", Store(), "--format", "json"});
  ASSERT_EQ(rep.code, 0) << rep.err;
  EXPECT_EQ(json::parse(rep.out)["runs"][0]["status"], "running");

  // The lock refuses at once with --no-wait, after the timeout without it, names who holds it,
  // and a refused run has written nothing.
  const fs::path b = TinyExperiment("b.yaml");
  Output now = Pipette({"run", b.string(), "--store", Store(), "--no-bandwidth", "--no-wait"});
  EXPECT_EQ(now.code, 2) << now.err;
  EXPECT_NE(
      now.err.find("another Pipette is measuring on this machine: pid " + std::to_string(first)),
      std::string::npos)
      << now.err;
  EXPECT_NE(now.err.find("run 1 of " + Store()), std::string::npos) << now.err;
  EXPECT_NE(now.err.find("--no-wait refuses at once"), std::string::npos);
  // A tier of this machine: its bandwidth probe measures here, so `env` waits for the lock too;
  // without the probe it reads the facts at once.
  const fs::path tier = Write("tier.yaml",
                              "models: [smollm2-135m-instruct-q4_1]\n"
                              "devices:\n"
                              "  - name: low\n"
                              "    local:\n"
                              "    tier: {cpu_quota: 0.5}\n"
                              "tests: [tg4]\n");
  Output env = Pipette({"env", tier.string(), "--device", "low", "--no-wait"});
  EXPECT_EQ(env.code, 2) << env.out << env.err;
  EXPECT_NE(env.err.find("another Pipette is measuring on this machine"), std::string::npos)
      << env.err;
  Output facts = Pipette({"env", tier.string(), "--device", "low", "--no-bandwidth", "--json"});
  EXPECT_EQ(facts.code, 0) << facts.err;
  EXPECT_NE(facts.out.find("emulated tier: quota 0.5 CPU"), std::string::npos) << facts.out;
  // Which cgroup version gives the tier its cpu controller here.
  const json cgroup = json::parse(facts.out)["tier"]["cgroup"];
  const json v1 = {{"cpu", "v1"}}, v2 = {{"cpu", "v2"}};
  EXPECT_TRUE(cgroup == v1 || cgroup == v2) << cgroup;
  const auto t0 = std::chrono::steady_clock::now();
  Output later =
      Pipette({"run", b.string(), "--store", Store(), "--no-bandwidth", "--lock-timeout", "1"});
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  EXPECT_EQ(later.code, 2) << later.err;
  EXPECT_NE(later.err.find("still measuring on this machine after"), std::string::npos)
      << later.err;
  EXPECT_EQ(Sql(Store(), "SELECT status FROM runs"), "running") << "refused runs write no run";
  Output other = Pipette({"run", b.string(), "--store", (dir_ / "new.db").string(), "--no-wait"});
  EXPECT_EQ(other.code, 2);
  EXPECT_FALSE(fs::exists(dir_ / "new.db")) << "not even the store";

  // A command that opens the store to write leaves the live run alone; without a limit it waits,
  // then measures once the first is done.
  const pid_t second =
      StartPipette({"run", b.string(), "--store", Store(), "--no-bandwidth"}, "b-");
  ASSERT_TRUE(WaitUntil([&] {
    return Err("b-").find("waiting for another Pipette measuring") != std::string::npos;
  })) << Err("b-");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ASSERT_EQ(::kill(first, SIGCONT), 0);
  EXPECT_EQ(Wait(first), 0) << Err("a-");
  EXPECT_EQ(Wait(second), 0) << Err("b-");
  EXPECT_EQ(Sql(Store(), "SELECT id, status FROM runs ORDER BY id"), "1|done\n2|done");
  const std::string a_end = Sql(Store(), "SELECT finished_at FROM runs WHERE id = 1");
  const std::string b_start = Sql(Store(), "SELECT min(started_at) FROM cells WHERE run_id = 2");
  EXPECT_GE(b_start, a_end) << "no cell of the second run measured while the first did";
  EXPECT_GE(
      json::parse(Sql(Store(), "SELECT lock FROM runs WHERE id = 2"))["waited_s"].get<double>(),
      1.0);
}

TEST_F(States, ARunMeasuredBesideAnotherPipetteSaysSo) {
  const fs::path a = LongExperiment("a.yaml", 20);
  const pid_t first = StartPipette(
      {"run", a.string(), "--store", (dir_ / "a.db").string(), "--no-bandwidth"}, "a-");
  ASSERT_TRUE(WaitUntil([&] { return Err("a-").find("tg16: started") != std::string::npos; }))
      << Err("a-");
  const int a_worker = WorkerOf("a-", 1);
  ASSERT_EQ(::kill(first, SIGSTOP), 0);  // its worker stays, for as long as the second runs
  // Another lock file: this run cannot see the first one's lock (as with an older Pipette, or a
  // machine whose Pipettes do not share one), but it sees its worker.
  setenv("PIPETTE_LOCK_FILE", (dir_ / "other.lock").c_str(), 1);
  const pid_t b = StartPipette({"run", TinyExperiment().string(), "--store", Store(),
                                "--no-bandwidth", "--export-md", (dir_ / "b.md").string()},
                               "b-");
  setenv("PIPETTE_LOCK_FILE", (dir_ / "measure.lock").c_str(), 1);
  EXPECT_EQ(Wait(b), 0) << Err("b-");
  ASSERT_EQ(::kill(first, SIGCONT), 0);
  const json doc = ReportJson();
  ASSERT_EQ(doc["warnings"].size(), 2u) << doc["warnings"];  // both of its cells
  EXPECT_NE(doc["warnings"][0].get<std::string>().find(
                "cell 1 was measured while another Pipette was measuring on this machine (pid " +
                std::to_string(a_worker) + " pipette-worker-"),
            std::string::npos)
      << doc["warnings"];
  EXPECT_EQ(doc["cells"][0]["conditions"]["other_pipette"][0]["pid"], a_worker);
  EXPECT_NE(ReadFile(dir_ / "b.md").find("warning: run 1 cell 1 was measured while another"),
            std::string::npos);
  EXPECT_EQ(Wait(first), 0) << Err("a-");
  // Measured alone, the same experiment is not flagged.
  const std::string alone_store = (dir_ / "c.db").string();
  ASSERT_EQ(
      Pipette({"run", TinyExperiment().string(), "--store", alone_store, "--no-bandwidth"}).code,
      0);
  Output alone = Pipette({"report", "--store", alone_store, "--format", "json"});
  ASSERT_EQ(alone.code, 0) << alone.err;
  EXPECT_TRUE(json::parse(alone.out)["warnings"].empty()) << alone.out;
}

TEST_F(States, TwoQueuedResumesOfOneRunMeasureItsCellsOnce) {
  const fs::path ex = TinyExperiment();
  ASSERT_EQ(Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"}).code, 0);
  // FAKE: a run that ended before its second cell started.
  Sql(Store(), "DELETE FROM samples WHERE cell_id = 2");
  Sql(Store(), "DELETE FROM cells WHERE id = 2");
  Sql(Store(), "UPDATE runs SET status = 'interrupted'");
  // This test holds the measuring lock, so both resumes plan, then queue behind it.
  pipette::run::LockOptions lock;
  lock.path = (dir_ / "measure.lock").string();
  auto held =
      pipette::run::MeasureLock::Acquire(lock, {{"pid", ::getpid()}, {"command", "the test"}});
  ASSERT_TRUE(held.ok()) << held.error().message;
  const pid_t one =
      StartPipette({"run", "--store", Store(), "--resume", "1", "--no-bandwidth"}, "1-");
  const pid_t two =
      StartPipette({"run", "--store", Store(), "--resume", "1", "--no-bandwidth"}, "2-");
  ASSERT_TRUE(WaitUntil([&] {
    return Err("1-").find("waiting for another Pipette") != std::string::npos &&
           Err("2-").find("waiting for another Pipette") != std::string::npos;
  })) << Err("1-")
      << Err("2-");
  held->reset();
  EXPECT_EQ(Wait(one), 0) << Err("1-");
  EXPECT_EQ(Wait(two), 0) << Err("2-");
  EXPECT_EQ(Sql(Store(), "SELECT idx, status FROM cells ORDER BY id"), "0|ok\n1|ok");
  EXPECT_EQ(Sql(Store(), "SELECT status, resumes FROM runs"), "done|1");
  EXPECT_NE((Err("1-") + Err("2-")).find("run 1 has nothing left to measure"), std::string::npos);
}

TEST_F(States, ARunRecordedOnAnotherHostIsShownAsSuchAndNeverChanged) {
  ASSERT_EQ(Pipette({"run", TinyExperiment().string(), "--store", Store(), "--no-bandwidth"}).code,
            0);
  // FAKE: this machine has no second host, so the row is edited to name one.
  Sql(Store(),
      "UPDATE runs SET status = 'running', finished_at = NULL, controller = "
      "'{\"host\":\"board-7\",\"machine_id\":\"x\",\"boot_id\":\"y\",\"pid\":1,\"start_ticks\":5}"
      "'");
  const json doc = ReportJson();
  EXPECT_EQ(doc["runs"][0]["status"], "running elsewhere");
  EXPECT_NE(doc["warnings"][0].get<std::string>().find("pid 1 on board-7"), std::string::npos);
  ASSERT_EQ(Pipette({"run", TinyExperiment().string(), "--store", Store(), "--no-bandwidth"}).code,
            0);
  EXPECT_EQ(Sql(Store(), "SELECT status FROM runs WHERE id = 1"), "running");
  Output res = Pipette({"run", "--store", Store(), "--resume", "1"});
  EXPECT_EQ(res.code, 2);
  EXPECT_NE(res.err.find("run 1 in " + Store() + " is running elsewhere (pid 1 on board-7)"),
            std::string::npos)
      << res.err;
}

TEST_F(States, ResumeRefusesAnotherExperimentOrModelAndRetriesFailedCellsOnlyWhenAsked) {
  fs::copy_file(kModel, dir_ / "m.gguf");
  const std::string corpus =
      ReadFile(kSource + "/datasets/ppl/devils-dictionary.txt").substr(0, 4000);
  Write("corpus.txt", corpus);
  const std::string text =
      "models: [m.gguf]\nparams: {threads: [1, 2]}\ntests: [tg4]\nrepetitions: 2\nwarmup: 0\n"
      "quality:\n  ppl: {corpus: corpus.txt, n_ctx: 64, chunks: 1}\n";
  const fs::path ex = Write("ex.yaml", text);
  ASSERT_EQ(Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"}).code, 0);
  // FAKE states of a run that ended early, written into the store: cell 2 cut short.
  Sql(Store(), "UPDATE runs SET status = 'interrupted'");
  Sql(Store(), "UPDATE cells SET status = 'interrupted' WHERE idx = 1");

  Write("ex.yaml", text + "seed: 7\n");
  Output changed = Pipette({"run", ex.string(), "--store", Store(), "--resume", "1"});
  EXPECT_EQ(changed.code, 2);
  EXPECT_NE(changed.err.find("is not the experiment it ran (seed: 42 then, 7 now)"),
            std::string::npos)
      << changed.err;
  Write("ex.yaml", text);
  {
    std::fstream f(dir_ / "m.gguf", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');  // the last byte of the last tensor: still a readable GGUF
  }
  Output model =
      Pipette({"run", ex.string(), "--store", Store(), "--resume", "1", "--no-bandwidth"});
  EXPECT_EQ(model.code, 2);
  EXPECT_NE(model.err.find("model 'm' (" + (dir_ / "m.gguf").string() + ") has changed"),
            std::string::npos)
      << model.err;
  fs::copy_file(kModel, dir_ / "m.gguf", fs::copy_options::overwrite_existing);
  Write("corpus.txt", "An edited corpus. " + corpus);
  Output data = Pipette({"run", ex.string(), "--store", Store(), "--resume", "1"});
  EXPECT_EQ(data.code, 2);
  EXPECT_NE(data.err.find("the dataset " + (dir_ / "corpus.txt").string() + " has changed"),
            std::string::npos)
      << data.err;
  Write("corpus.txt", corpus);
  Output only =
      Pipette({"run", ex.string(), "--store", Store(), "--resume", "1", "--only", "threads=1"});
  EXPECT_EQ(only.code, 2);
  EXPECT_NE(only.err.find("--only cannot narrow a resumed run"), std::string::npos);
  EXPECT_EQ(Sql(Store(), "SELECT count(*) FROM cells"), "2") << "refusals measure nothing";

  // A failed cell is left as it is unless --retry-failed.
  Sql(Store(), "UPDATE cells SET status = 'failed', error = 'FAKE' WHERE idx = 1");
  Output kept = Pipette({"run", ex.string(), "--store", Store(), "--resume", "1"});
  EXPECT_EQ(kept.code, 1) << kept.err;  // the run has a failed cell
  EXPECT_NE(kept.err.find("1 failed (--retry-failed measures them again)"), std::string::npos)
      << kept.err;
  Output retried = Pipette({"run", ex.string(), "--store", Store(), "--resume", "1",
                            "--retry-failed", "--no-bandwidth"});
  ASSERT_EQ(retried.code, 0) << retried.err;
  EXPECT_EQ(Sql(Store(), "SELECT idx, status FROM cells ORDER BY id"), "0|ok\n1|superseded\n1|ok");
}

TEST_F(States, AResumedRunTakesItsKldReferenceFromTheStore) {
  const fs::path ex = Write("ex.yaml", R"(models: [smollm2-135m-instruct-q4_1]
params:
  threads: [2, 1]
tests: [tg16]
repetitions: 30
warmup: 0
quality:
  kld: {reference: smollm2-135m-instruct-q4_1, chunks: 1, n_ctx: 256, top_k: 16}
)");
  const pid_t pid = StartPipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_TRUE(WaitUntil([&] {
    const std::string err = Err();
    return err.find("[cell 2/2] tg16: started") != std::string::npos;
  })) << Err();
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  Wait(pid);
  ASSERT_EQ(Sql(Store(), "SELECT status FROM cells WHERE idx = 0"), "ok");
  Output res = Pipette({"run", ex.string(), "--store", Store(), "--resume", "1", "--no-bandwidth"});
  ASSERT_EQ(res.code, 0) << res.err;
  EXPECT_EQ(Sql(Store(), "SELECT count(*) FROM samples WHERE test = 'kld_ref'"), "1")
      << "the reference is recorded once, by the first cell";
  EXPECT_EQ(Sql(Store(),
                "SELECT DISTINCT json_extract(raw, '$.request.ref_cell_id') FROM samples "
                "WHERE test = 'kld' AND cell_id = 3"),
            "1");
  const json doc = ReportJson();
  const json* mean = Find(doc["results"], 2, "kld", "kld_mean");
  ASSERT_NE(mean, nullptr);
  EXPECT_EQ((*mean)["cell_status"], "ok");
  EXPECT_EQ((*mean)["value"].get<double>(), 0.0);  // the same model: exactly none
}

TEST_F(States, AStoreOfTheLastReleaseIsReportedAsItIsThenMigratedByTheNextRun) {
  const std::string v1 = (dir_ / "v1.db").string();
  fs::copy_file(kSource + "/tests/data/store-v1.db", v1);
  const json then = json::parse(ReadFile(kSource + "/tests/data/store-v1.run1.json"));
  auto figures = [](const json& results) {
    std::map<std::string, json> out;
    for (const json& r : results) {
      out[r["cell"].dump() + " " + r["test"].get<std::string>() + " " +
          r["metric"].get<std::string>()] = {r["value"], r["n"], r["samples"]};
    }
    return out;
  };
  // Every figure that release reported, the same now; new figures only of the metrics added since
  // (a new metric does not change the report's schema: docs/report-schema.md).
  const std::set<std::string> added = {"ms_per_kchar"};
  auto same = [&](const json& results) {
    const auto now = figures(results), was = figures(then["results"]);
    for (const auto& [key, figure] : was) {
      auto it = now.find(key);
      ASSERT_NE(it, now.end()) << key;
      EXPECT_EQ(it->second, figure) << key;
    }
    for (const auto& [key, figure] : now) {
      if (was.count(key)) continue;
      EXPECT_TRUE(added.count(key.substr(key.rfind(' ') + 1)))
          << "a figure that release lacked: " << key;
    }
  };
  Output rep = Pipette({"report", "--store", v1, "--run", "1", "--format", "json"});
  ASSERT_EQ(rep.code, 0) << rep.err;
  same(json::parse(rep.out)["results"]);
  EXPECT_EQ(Sql(v1, "SELECT value FROM meta WHERE key = 'schema_version'"), "1") << "read only";
  Output two = Pipette({"report", "--store", v1, "--run", "2", "--format", "json"});
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_EQ(json::parse(two.out)["runs"][0]["status"], "abandoned");  // killed, that release said
  EXPECT_EQ(Sql(v1, "SELECT status FROM runs WHERE id = 2"), "running");

  Output run = Pipette({"run", TinyExperiment().string(), "--store", v1, "--no-bandwidth"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("migrated the store " + v1 + " from schema version 1 to " +
                         std::to_string(pipette::store::kSchemaVersion)),
            std::string::npos)
      << run.err;
  EXPECT_EQ(Sql(v1, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::to_string(pipette::store::kSchemaVersion));
  EXPECT_EQ(Sql(v1, "SELECT id, status FROM runs ORDER BY id"), "1|done\n2|abandoned\n3|done");
  EXPECT_EQ(Sql(v1, "PRAGMA integrity_check"), "ok");
  Output after = Pipette({"report", "--store", v1, "--run", "1", "--format", "json"});
  ASSERT_EQ(after.code, 0) << after.err;
  same(json::parse(after.out)["results"]);
}

TEST_F(States, AStoreOnAReadOnlyFileSystemIsReportedAndRefusedForWriting) {
  const fs::path ro = dir_ / "ro";
  fs::create_directories(ro);
  const std::string store = (ro / "results.db").string();
  ASSERT_EQ(Pipette({"run", TinyExperiment().string(), "--store", store, "--no-bandwidth"}).code,
            0);
  ASSERT_FALSE(fs::exists(store + "-shm")) << "the writer closed the store cleanly";
  // A private mount namespace in which the folder is mounted read-only (needs CAP_SYS_ADMIN).
  const std::string probe = "unshare -m sh -c 'mount -t tmpfs none /mnt' 2>/dev/null";
  if (std::system(probe.c_str()) != 0) {
    GTEST_SKIP() << "no mount namespace here (unshare -m needs CAP_SYS_ADMIN)";
  }
  const std::string script =
      "mount --bind " + ro.string() + " " + ro.string() + " && mount -o remount,bind,ro " +
      ro.string() + " && touch " + ro.string() + "/x 2>/dev/null && exit 99; " + kPipette +
      " report --store " + store + " --format json > " + (dir_ / "ro.json").string() + " 2> " +
      (dir_ / "ro.err").string() + "; echo $? > " + (dir_ / "ro.rc").string() + "; " + kPipette +
      " run " + TinyExperiment("t2.yaml").string() + " --store " + store +
      " --no-bandwidth > /dev/null 2> " + (dir_ / "rw.err").string() + "; echo $? > " +
      (dir_ / "rw.rc").string();
  ASSERT_EQ(std::system(("unshare -m sh -c '" + script + "'").c_str()), 0);
  EXPECT_EQ(ReadFile(dir_ / "ro.rc"), "0\n") << ReadFile(dir_ / "ro.err");
  const json doc = json::parse(ReadFile(dir_ / "ro.json"));
  EXPECT_EQ(doc["runs"][0]["status"], "done");
  EXPECT_FALSE(doc["results"].empty());
  EXPECT_EQ(ReadFile(dir_ / "rw.rc"), "2\n") << ReadFile(dir_ / "rw.err");
  EXPECT_NE(ReadFile(dir_ / "rw.err").find(store), std::string::npos) << ReadFile(dir_ / "rw.err");
  EXPECT_EQ(Sql(store, "SELECT count(*) FROM runs"), "1");

  // A writer killed before its last checkpoint leaves writes in the -wal file, which a read-only
  // file system keeps SQLite from reading: the report says what it cannot show.
  const pid_t killed = StartPipette(
      {"run", LongExperiment("long.yaml").string(), "--store", store, "--no-bandwidth"}, "k-");
  ASSERT_TRUE(WaitUntil([&] {
    return Sql(store, "SELECT count(*) FROM samples WHERE test = 'tg16'") != "0";
  })) << Err("k-");
  ASSERT_EQ(::kill(killed, SIGKILL), 0);
  Wait(killed);
  ASSERT_GT(fs::file_size(store + "-wal"), 0u);
  fs::remove(store + "-shm");  // as after a reboot: nothing of the writer's is left but its log
  const std::string again = "mount --bind " + ro.string() + " " + ro.string() +
                            " && mount -o remount,bind,ro " + ro.string() + " && " + kPipette +
                            " report --store " + store + " --format json > " +
                            (dir_ / "ro2.json").string() + " 2> " + (dir_ / "ro2.err").string();
  ASSERT_EQ(std::system(("unshare -m sh -c '" + again + "'").c_str()), 0)
      << ReadFile(dir_ / "ro2.err");
  const json doc2 = json::parse(ReadFile(dir_ / "ro2.json"));
  ASSERT_FALSE(doc2["warnings"].empty());
  EXPECT_NE(doc2["warnings"][0].get<std::string>().find("-wal holds writes not yet in"),
            std::string::npos)
      << doc2["warnings"];
}

}  // namespace
}  // namespace pipette_e2e
