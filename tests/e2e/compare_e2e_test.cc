// `pipette compare` through the CLI, on runs made in the test: a run against itself (every ratio 1,
// no figure better or worse), the Markdown and JSON outputs, a gate that passes, and bad input
// (a gate line naming no figure, a malformed gate line, an unknown key, a missing run) refused
// with exit code 2 and the place. The verdicts on known sample sets are unit-tested
// (compare/verdict_test.cc, compare/compare_test.cc): real runs' speeds are not known answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "fixture.h"
#include "pipette/testing/paths.h"

namespace pipette_e2e {
namespace {

class CompareE2E : public E2E {
 protected:
  void SetUp() override {
    E2E::SetUp();
    const fs::path ex = Write("ex.yaml",
                              "models: [smollm2-135m-instruct-q4_1]\n"
                              "params: {threads: 1, n_ctx: 256}\n"
                              "tests: [tg4]\n"
                              "repetitions: 3\n"
                              "warmup: 0\n");
    Output run = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
    ASSERT_EQ(run.code, 0) << run.err;
  }
};

TEST_F(CompareE2E, ARunAgainstItselfIsNeverBetterOrWorse) {
  Output md = Pipette({"compare", Store(), Store() + ":1"});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(md.out.find("Baseline: " + Store() + " run 1"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| test=tg4 "), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("- Every figure: model=smollm2-135m-instruct-q4_1 quant=Q4_1"),
            std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("seed 20261204"), std::string::npos);

  Output js = Pipette({"compare", Store(), Store(), "--format", "json", "--seed", "7"});
  ASSERT_EQ(js.code, 0) << js.err;
  const json j = json::parse(js.out);
  EXPECT_EQ(j["schema_version"], 4);
  EXPECT_EQ(j["seed"], 7);
  EXPECT_FALSE(j["gate_failed"].get<bool>());
  bool throughput = false;
  for (const json& f : j["figures"]) {
    EXPECT_EQ(f["ratio"], 1.0) << f;
    EXPECT_NE(f["verdict"], "better") << f;
    EXPECT_NE(f["verdict"], "worse") << f;
    if (f["figure"] == "test=tg4" && f["metric"] == "throughput") {
      throughput = true;
      EXPECT_EQ(f["baseline_n"], 3);
      EXPECT_EQ(f["candidate_n"], 3);
      EXPECT_EQ(f["compared_as"], "ratio of medians");
      EXPECT_LE(f["ci_low"].get<double>(), 1.0);
      EXPECT_GE(f["ci_high"].get<double>(), 1.0);
    }
  }
  EXPECT_TRUE(throughput) << js.out;
  EXPECT_TRUE(j["baseline_only"].empty());
  EXPECT_TRUE(j["candidate_only"].empty());

  // The figures as CSV and JSONL: the JSON's rows, one a line.
  Output csv = Pipette({"compare", Store(), Store(), "--format", "csv", "--seed", "7"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("figure,key,test,metric,unit,compared_as,baseline,candidate,ratio,", 0),
            0u)
      << csv.out;
  EXPECT_EQ(size_t(std::count(csv.out.begin(), csv.out.end(), '\n')), j["figures"].size() + 1);
  Output jsonl = Pipette({"compare", Store(), Store(), "--format", "jsonl", "--seed", "7"});
  ASSERT_EQ(jsonl.code, 0) << jsonl.err;
  std::istringstream lines(jsonl.out);
  std::string line;
  for (const json& f : j["figures"]) {
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_EQ(json::parse(line), f);
  }
  EXPECT_FALSE(std::getline(lines, line));
  Output html = Pipette({"compare", Store(), Store(), "--format", "html"});
  EXPECT_EQ(html.code, 2);
  EXPECT_NE(html.err.find("--format html: compare writes md, json, csv or jsonl"),
            std::string::npos)
      << html.err;
}

TEST_F(CompareE2E, AGateThatHoldsExitsZeroAndBadInputTwoWithItsPlace) {
  // A second run of the experiment: other cells, so the gate decides. Its limits are loose
  // enough that any machine's noise lies within them.
  const fs::path ex = dir_ / "ex.yaml";
  ASSERT_EQ(Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"}).code, 0);
  const fs::path gate = Write("release.gate", "# release rule\ntg4: -90%\npeak_rss: +100%\n");
  Output ok = Pipette({"compare", Store() + ":1", Store() + ":2", "--gate", gate.string()});
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("passed -90%"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("The gate passed: every line held."), std::string::npos) << ok.out;
  // A gate file with a UTF-8 byte-order mark reads as any other.
  const fs::path bom = Write("bom.gate", "\xEF\xBB\xBFtg4: -90%\n");
  Output b0 = Pipette({"compare", Store() + ":1", Store() + ":2", "--gate", bom.string()});
  EXPECT_EQ(b0.code, 0) << b0.out << b0.err;
  // A directory is not a gate file.
  Output d = Pipette({"compare", Store() + ":1", Store() + ":2", "--gate", dir_.string()});
  EXPECT_EQ(d.code, 2);
  EXPECT_NE(d.err.find("--gate " + dir_.string() + ": a directory, not a gate file"),
            std::string::npos)
      << d.err;

  const fs::path typo = Write("typo.gate", "tg5: -3%\n");
  Output t = Pipette({"compare", Store(), Store(), "--gate", typo.string()});
  EXPECT_EQ(t.code, 2);
  EXPECT_NE(t.err.find(typo.string() + ":1:1: 'tg5' names no figure this comparison has (did "
                                       "you mean 'tg4'?)"),
            std::string::npos)
      << t.err;
  const fs::path bad = Write("bad.gate", "tg4: 3%\n");
  Output b = Pipette({"compare", Store(), Store(), "--gate", bad.string()});
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find(bad.string() + ":1:6: '3%' has no sign (+ or -)"), std::string::npos)
      << b.err;
  Output key = Pipette({"compare", Store(), Store(), "--ignore", "thread"});
  EXPECT_EQ(key.code, 2);
  EXPECT_NE(key.err.find("did you mean 'threads'?"), std::string::npos) << key.err;
  Output run = Pipette({"compare", Store(), Store() + ":9"});
  EXPECT_EQ(run.code, 2) << run.err;
  Output none = Pipette({"compare", Store(), (dir_ / "none.db").string()});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("no such store"), std::string::npos) << none.err;
}

TEST_F(CompareE2E, AJsonReportIsASideAndPairOnNamesTheKeysThatMatter) {
  const std::string report = (dir_ / "report.json").string();
  Output r = Pipette({"report", "--store", Store(), "--format", "json", "-o", report});
  ASSERT_EQ(r.code, 0) << r.err;
  Output js = Pipette({"compare", report, Store(), "--format", "json", "--pair-on", "quant"});
  ASSERT_EQ(js.code, 0) << js.err;
  const json j = json::parse(js.out);
  EXPECT_EQ(j["baseline"], report + " run 1");
  ASSERT_FALSE(j["figures"].empty()) << js.out;
  for (const json& f : j["figures"]) {
    EXPECT_EQ(f["difference"], 0.0) << f;  // the same samples, read back from the report
  }
  // Every key but the quantization is ignored, and said so.
  bool model = false;
  for (const json& k : j["ignored"]) model = model || k == "model";
  EXPECT_TRUE(model) << j["ignored"];
  const fs::path not_report = Write("other.json", "{\"schema\": \"pipette.predict\"}\n");
  Output bad = Pipette({"compare", not_report.string(), Store()});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("not a Pipette JSON report"), std::string::npos) << bad.err;
  Output run = Pipette({"compare", report + ":7", Store()});
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("no result of run 7"), std::string::npos) << run.err;
}

// The shipped release rule (examples/gates/release.gate: accuracy not lower, decoding not slower,
// memory not higher) on a run with those figures, against itself: it holds, exit 0; against a
// candidate whose mc items are n/a (a run without them) it fails, exit 1.
TEST_F(CompareE2E, TheShippedReleaseGate) {
  const fs::path ex = Write("release.yaml",
                            "models: [smollm2-135m-instruct-q4_1]\n"
                            "params: {threads: 1}\n"
                            "tests: [tg128]\n"
                            "repetitions: 3\n"
                            "warmup: 0\n"
                            "quality:\n"
                            "  mc: {limit: 6}\n");
  const std::string store = (dir_ / "release.db").string();
  Output run = Pipette({"run", ex.string(), "--store", store, "--no-bandwidth"});
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string gate = pipette::testing::SourceDir() + "/examples/gates/release.gate";
  // The run against itself: the same cells on both sides decide nothing (exit 3), and say so.
  Output same = Pipette({"compare", store, store, "--gate", gate});
  EXPECT_EQ(same.code, 3) << same.out << same.err;
  // The accuracy compared item by item: a difference of +0 with its paired interval.
  EXPECT_NE(same.out.find("| test=mc "), std::string::npos) << same.out;
  EXPECT_NE(same.out.find(" +0 |"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("inconclusive -0 points"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("The same cells on both sides"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("The gate is INCONCLUSIVE"), std::string::npos) << same.out;
  EXPECT_EQ(same.out.find("passed"), std::string::npos) << same.out;
  // A candidate without mc: the gated accuracy is missing, so the gate fails.
  const fs::path no_mc = Write("no-mc.yaml",
                               "models: [smollm2-135m-instruct-q4_1]\n"
                               "params: {threads: 1}\n"
                               "tests: [tg128]\n"
                               "repetitions: 3\n"
                               "warmup: 0\n");
  const std::string other = (dir_ / "no-mc.db").string();
  ASSERT_EQ(Pipette({"run", no_mc.string(), "--store", other, "--no-bandwidth"}).code, 0);
  Output fail = Pipette({"compare", store, other, "--gate", gate});
  EXPECT_EQ(fail.code, 1) << fail.out << fail.err;
  EXPECT_NE(fail.out.find("FAILED -0 points"), std::string::npos) << fail.out;
  EXPECT_NE(fail.out.find("the candidate has no such figure"), std::string::npos) << fail.out;
}

// The exit codes of a gate the data cannot decide (3), and of the report a side reads: a gated
// figure with no valid sample is missing (the line fails, exit 1), never a median of 0; a report
// nested deeper than any Pipette writes is refused (exit 2); a figure measured under a warning is
// marked and its line undecided (exit 3).
TEST_F(CompareE2E, UndecidedGateLinesExitThreeAndInvalidSamplesAreMissing) {
  const fs::path gate = Write("tg.gate", "tg4: -3%\n");
  const std::string report = (dir_ / "report.json").string();
  ASSERT_EQ(Pipette({"report", "--store", Store(), "--format", "json", "-o", report}).code, 0);
  json doc = json::parse(ReadFile(report));
  auto tg = std::find_if(doc["results"].begin(), doc["results"].end(), [](const json& r) {
    return r["test"] == "tg4" && r["metric"] == "throughput";
  });
  ASSERT_NE(tg, doc["results"].end());
  // The candidate's samples: none, or one null (a sample that was not a finite number).
  for (const json& samples : {json::array(), json::array({1.0, nullptr, 2.0})}) {
    (*tg)["samples"] = samples;
    (*tg)["cell"] = 7;  // another cell than the store's
    const fs::path cand = Write("cand.json", doc.dump());
    Output o = Pipette({"compare", Store(), cand.string(), "--gate", gate.string()});
    EXPECT_EQ(o.code, 1) << o.out << o.err;
    EXPECT_NE(o.out.find("no valid figure in the candidate"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("FAILED -3%"), std::string::npos) << o.out;
  }
  // The candidate's cell measured while another Pipette measured: marked, undecided.
  (*tg)["samples"] = json::array({1.0, 1.1, 0.9});
  (*tg)["untrusted"] = "measured while 1 other Pipette measured on the machine (pid 7)";
  const fs::path marked = Write("marked.json", doc.dump());
  Output u =
      Pipette({"compare", Store(), marked.string(), "--gate", gate.string(), "--format", "json"});
  EXPECT_EQ(u.code, 3) << u.out << u.err;
  const json j = json::parse(u.out);
  EXPECT_EQ(j["schema_version"], 4);
  EXPECT_EQ(j["gate"], "inconclusive");
  bool seen = false;
  for (const json& f : j["figures"]) {
    if (f["gate_outcome"].is_null()) continue;
    seen = true;
    EXPECT_EQ(f["verdict"], "worse") << f;
    EXPECT_EQ(f["gate_outcome"], "inconclusive") << f;
    EXPECT_NE(f["untrusted"].get<std::string>().find("candidate: measured while"),
              std::string::npos)
        << f;
  }
  EXPECT_TRUE(seen) << u.out;
  // A report nesting half a million arrays: refused, not a crash.
  const fs::path deep =
      Write("deep.json", R"({"schema": "pipette.report", "schema_version": 8, "results": )" +
                             std::string(500000, '[') + std::string(500000, ']') + "}");
  Output d = Pipette({"compare", Store(), deep.string()});
  EXPECT_EQ(d.code, 2) << d.err;
  EXPECT_NE(d.err.find("nested deeper than"), std::string::npos) << d.err;
  // A field of the wrong type names the result.
  (*tg)["model"] = 5;
  const fs::path typed = Write("typed.json", doc.dump());
  Output t = Pipette({"compare", Store(), typed.string()});
  EXPECT_EQ(t.code, 2) << t.err;
  EXPECT_NE(t.err.find(".model is not text"), std::string::npos) << t.err;
}

}  // namespace
}  // namespace pipette_e2e

namespace pipette_e2e {
namespace {

// `run --interleave` on two configurations, then the run compared with itself, one configuration
// a side: both sides measured in rounds of one run, which compare says; every cell holds all its
// repetitions.
TEST_F(E2E, AnInterleavedRunComparesTwoOfItsConfigurationsAndSaysSo) {
  const fs::path ex = Write("ex.yaml",
                            "models: [smollm2-135m-instruct-q4_1]\n"
                            "params: {threads: [1, 2], n_ctx: 256}\n"
                            "tests: [pp16, tg4]\n"
                            "repetitions: 3\n"
                            "warmup: 1\n");
  Output run = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth", "--interleave"});
  ASSERT_EQ(run.code, 0) << run.err;
  const json report = ReportJson();
  ASSERT_EQ(report["runs"].size(), 1u);
  EXPECT_EQ(report["runs"][0]["interleaved"], true);
  int tg = 0;
  for (const json& r : report["results"]) {
    if (r["test"] != "tg4" || r["metric"] != "throughput") continue;
    ++tg;
    EXPECT_EQ(r["n"], 3) << r;
  }
  EXPECT_EQ(tg, 2);

  Output js = Pipette({"compare", Store() + ":1", Store() + ":1", "--baseline-only", "threads=1",
                       "--candidate-only", "threads=2", "--ignore", "threads", "--format", "json"});
  ASSERT_EQ(js.code, 0) << js.err;
  const json j = json::parse(js.out);
  EXPECT_EQ(j["interleaving"]["same_run"], true);
  EXPECT_EQ(j["interleaving"]["interleaved"], true);
  EXPECT_EQ(j["baseline"], Store() + " run 1 (threads=1)");
  bool tg_compared = false;
  for (const json& f : j["figures"]) {
    tg_compared = tg_compared || (f["figure"] == "test=tg4" && f["metric"] == "throughput");
  }
  EXPECT_TRUE(tg_compared) << js.out;
  EXPECT_EQ(j["ignored"], json::array({"threads"}));
  // Two configurations of one run are other cells: not the same cells.
  EXPECT_EQ(j["same_cells"], 0);

  // A filter no cell matches is bad input, with the values there are.
  Output bad = Pipette({"compare", Store(), Store(), "--baseline-only", "threads=8"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--baseline-only threads=8: no cell has threads=8 (its values there: "
                         "1, 2)"),
            std::string::npos)
      << bad.err;
}

// Two repetitions a cell: no figure can be decided, so a gate on them is inconclusive (exit 3),
// however far apart the medians, and says why.
TEST_F(E2E, TwoRepetitionsDecideNoGateLine) {
  const fs::path ex = Write("ex.yaml",
                            "models: [smollm2-135m-instruct-q4_1]\n"
                            "params: {threads: [1, 2], n_ctx: 256}\n"
                            "tests: [tg4]\n"
                            "repetitions: 2\n"
                            "warmup: 0\n");
  ASSERT_EQ(Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"}).code, 0);
  const fs::path gate = Write("tg4.gate", "tg4: -3%\n");
  Output o =
      Pipette({"compare", Store() + ":1", Store() + ":1", "--baseline-only", "threads=1",
               "--candidate-only", "threads=2", "--ignore", "threads", "--gate", gate.string()});
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_NE(o.out.find("inconclusive -3%"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("too few samples: fewer than 3 samples a side (2 and 2)"), std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("passed"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace pipette_e2e
