// The HTML report in a real browser: a run made here (the bundled model at one and two threads
// and two depths, speed tests, ppl, an mc subset), `pipette report --format html -o`, then headless
// Chromium (Debian's chromium, driven by web/check-report.mjs with the pinned puppeteer-core) opens
// the file: as many charts are drawn as the page declares, the console shows no error, and the page
// makes no request but the file itself. The screenshot is kept as a build artifact
// (build/artifacts/html-report.png).
#include <gtest/gtest.h>

#include <algorithm>

#include "fixture.h"
#include "pipette/testing/paths.h"

namespace pipette_e2e {
namespace {

class HtmlReportE2E : public E2E {};

TEST_F(HtmlReportE2E, OpensOfflineWithEveryDeclaredChartDrawnAndNoConsoleError) {
  const fs::path ex = Write("ex.yaml",
                            "models: [smollm2-135m-instruct-q4_1]\n"
                            "params: {threads: [1, 2], depth: [0, 32]}\n"
                            "tests: [pp16, tg8]\n"
                            "repetitions: 3\n"
                            "warmup: 0\n"
                            "quality:\n"
                            "  ppl: {chunks: 1}\n"
                            "  mc: {limit: 4}\n");
  Output run = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
  ASSERT_EQ(run.code, 0) << run.err;
  const fs::path html = dir_ / "report.html";
  Output rep = Pipette({"report", "--store", Store(), "--format", "html", "-o", html.string()});
  ASSERT_EQ(rep.code, 0) << rep.err;
  const std::string page = ReadFile(html);
  // Self-contained: the libraries inlined, no script or style fetched from anywhere.
  EXPECT_NE(page.find("/* vega-embed 7.0.2 (npm), inlined */"), std::string::npos);
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);

  const fs::path artifacts = fs::path(pipette::testing::BinaryDir()) / "artifacts";
  fs::create_directories(artifacts);
  const fs::path shot = artifacts / "html-report.png";
  fs::remove(shot);
  const fs::path out = dir_ / "browser.json", err = dir_ / "browser.err";
  const int code = Wait(Spawn(
      {"node", kSource + "/web/check-report.mjs", html.string(), shot.string(), "tg8"}, out, err));
  ASSERT_EQ(code, 0) << ReadFile(err);
  const json seen = json::parse(ReadFile(out));
  // Speed by threads, quality against speed and memory (ppl and mc), ppl by quantization, tg and
  // memory against depth, the samples of each speed figure: charts in several sections.
  EXPECT_GE(seen["declared"].get<int>(), 8) << seen.dump();
  for (const char* chart : {"data-chart=\"speed-by-threads\"", "data-chart=\"depth-speed\"",
                            "data-chart=\"speed-ppl-ppl\"", "data-chart=\"ppl-by-quant\""}) {
    EXPECT_NE(page.find(chart), std::string::npos) << chart;
  }
  EXPECT_EQ(seen["rendered"], seen["declared"]) << seen.dump();
  EXPECT_TRUE(seen["console"].empty()) << seen.dump();
  EXPECT_EQ(seen["requests"], json::array({"file://" + fs::canonical(html).string()}))
      << seen.dump();
  EXPECT_TRUE(fs::exists(shot) && fs::file_size(shot) > 10000) << shot;
  // A section with nothing to show says so, folded into the one "Not in this run" line (no
  // sustained test in this run).
  EXPECT_NE(page.find("No cell ran a sustained test"), std::string::npos);
  EXPECT_EQ(page.find("Not in this run: "), page.rfind("Not in this run: "));
  EXPECT_EQ(page.find("<section id=\"sustained\">"), std::string::npos);
  // The summary sorts on a click (its test column in order) and filters as one types (the lines
  // left are the tg lines, all of them).
  ASSERT_TRUE(seen["sorted"].is_array()) << seen.dump();
  std::vector<std::string> tests;
  for (const json& t : seen["sorted"]) tests.push_back(t.get<std::string>());
  EXPECT_TRUE(std::is_sorted(tests.begin(), tests.end())) << seen["sorted"].dump();
  const long tg_lines = std::count(tests.begin(), tests.end(), "tg8");
  EXPECT_GT(tg_lines, 0);
  ASSERT_TRUE(seen["visible"].is_array());
  EXPECT_EQ(long(seen["visible"].size()), tg_lines) << seen["visible"].dump();
  for (const json& line : seen["visible"]) {
    EXPECT_NE(line.get<std::string>().find("tg8"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace pipette_e2e
