// The HTML page: names from the store escaped in the page and in the chart specifications, the
// declared chart count, and the registered renderer inlining the pinned libraries whole.
#include "pipette/report/html.h"

#include <gtest/gtest.h>

#include <cctype>
#include <sstream>

#include "pipette/report/formats.h"
#include "pipette/runtime/registry.h"
#include "pipette/workload/registry.h"

namespace pipette::report {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

ReportData Hostile() {
  ReportData d;
  d.store_path = "runs/<b>store</b>.db";
  for (int threads : {1, 2}) {
    metrics::ResultRow r;
    auto& f = r.EditCell();
    f.run_id = 1;
    f.cell_id = threads;
    f.cell_index = threads - 1;
    f.cell_status = "ok";
    f.model = "<img src=x onerror=alert(1)>";
    f.quant = "Q4_0";
    f.runtime = "llama.cpp";
    f.device = threads == 1 ? "a&b \"device\" </script>" : "plain";
    f.params = {{"threads", threads}};
    r.test = "tg16";
    r.metric = "throughput";
    r.unit = "t/s";
    r.samples = {10.0 * threads, 11.0 * threads, 12.0 * threads};
    r.summary = stats::Summarize(r.samples);
    r.value = r.summary.median;
    d.rows.push_back(r);
  }
  d.warnings.push_back("a warning with <tags> & 'quotes'");
  store::CellRecord cell;
  cell.id = 1;
  cell.run_id = 1;
  cell.status = "ok";
  cell.model_name = "<img src=x onerror=alert(1)>";
  cell.model_sha256 = "5ha";
  cell.model_file_size = 1 << 20;
  cell.model_source = "pypi <evil>";
  cell.model_info["provenance"] = {{"type", "Q4_0"}, {"note", "made from <F16>"}};
  d.cells.push_back(cell);
  d.environments.push_back({1, "fp<1>", {{"cpu_model", "CPU <x>"}}});
  return d;
}

std::string Page(const ReportData& d, const std::vector<WebLibrary>& libraries) {
  std::ostringstream out;
  RenderHtmlPage(
      BuildReport(d, runtime::Registry().Params(), workload::Figures(), ReportParts::kPage),
      libraries, out);
  return out.str();
}

TEST(Html, NamesFromTheStoreAreEscapedEverywhere) {
  const std::string page = Page(Hostile(), {});
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_EQ(page.find("<tags>"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(page.find("a&amp;b &quot;device&quot; &lt;/script&gt;"), std::string::npos);
  // In the specifications, '<' is \u003c: the only "</script>" are the ones that close elements.
  EXPECT_NE(page.find("\\u003cimg src=x"), std::string::npos);
  EXPECT_EQ(Count(page, "</script>"), Count(page, "<script"));
}

// Each device's fingerprint and facts and each model's source and provenance are on the page,
// escaped.
TEST(Html, DevicesAndModelsShowFingerprintsAndProvenance) {
  const std::string page = Page(Hostile(), {});
  EXPECT_NE(page.find("<section id=\"devices\">"), std::string::npos);
  EXPECT_NE(page.find("fp&lt;1&gt;"), std::string::npos);
  EXPECT_NE(page.find("CPU &lt;x&gt;"), std::string::npos);
  EXPECT_NE(page.find("<section id=\"models\">"), std::string::npos);
  EXPECT_NE(page.find("<td>5ha</td>"), std::string::npos);
  EXPECT_NE(page.find("pypi &lt;evil&gt;"), std::string::npos);
  EXPECT_NE(page.find("made from &lt;F16&gt;"), std::string::npos);
  EXPECT_EQ(page.find("<evil>"), std::string::npos);
}

TEST(Html, TheDeclaredChartCountIsTheNumberOfChartElements) {
  const std::string page = Page(Hostile(), {});
  const int charts = Count(page, "<div class=\"pipette-chart\"");
  EXPECT_GT(charts, 0);
  EXPECT_NE(page.find(fmt::format("<meta name=\"pipette-charts\" content=\"{}\">", charts)),
            std::string::npos);
  EXPECT_EQ(Count(page, "<script type=\"application/json\" id=\"spec-"), charts);
}

// Emulated results are marked in place in the summary, as noisy, re-quantized and n/a ones are
// (tests/golden/report.html shows those three).
TEST(Html, AnEmulatedLineIsMarkedInPlace) {
  ReportData d = Hostile();
  d.rows[0].EditCell().emulated = true;
  d.rows[1].EditCell().emulated_tier = true;
  const std::string page = Page(d, {});
  EXPECT_NE(page.find("<tr class=\"noisy emulated\">"), std::string::npos);  // both marks
  EXPECT_NE(page.find("<span class=\"mark emulated\">emulated</span>"), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"noisy emulated-tier\">"), std::string::npos);
  EXPECT_NE(page.find("<span class=\"mark emulated-tier\">emulated tier</span>"),
            std::string::npos);
}

// The sections with nothing to show fold into one line under the summary, each by its title with
// what fills it (the reason as its tooltip); they get no heading, no note and no link of their
// own. Two thread counts of tg16: speed by threads and the samples are drawn, the rest folds.
TEST(Html, SectionsWithoutDataFoldIntoOneLine) {
  ReportData one_device = Hostile();
  for (auto& r : one_device.rows) r.EditCell().device = "plain";
  const std::string page = Page(one_device, {});
  EXPECT_EQ(Count(page, "Not in this run: "), 1);
  EXPECT_EQ(Count(page, "class=\"empty\""), 0);
  EXPECT_NE(page.find("<section id=\"speed-threads\">"), std::string::npos);
  EXPECT_NE(page.find("<section id=\"samples\">"), std::string::npos);
  for (const char* id : {"sustained", "depth", "speed-n_batch", "quality-by-quant"}) {
    EXPECT_EQ(page.find(fmt::format("<section id=\"{}\">", id)), std::string::npos) << id;
    EXPECT_EQ(page.find(fmt::format("href=\"#{}\"", id)), std::string::npos) << id;
  }
  const size_t line = page.find("<p class=\"not-in-run\"");
  ASSERT_NE(line, std::string::npos);
  const std::string text = page.substr(line, page.find("</p>", line) - line);
  EXPECT_NE(text.find("\">Sustained decoding</span> (a sustained60 test)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("<span title=\"No cell ran a sustained test."), std::string::npos) << text;
  EXPECT_NE(text.find("Speed by batch size</span> (n_batch: [128, 512])"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("Speed by threads"), std::string::npos) << text;
  // Under the summary, before the first section drawn.
  EXPECT_LT(page.find("<section id=\"summary\">"), line);
  EXPECT_LT(line, page.find("<section id=\"speed-threads\">"));
}

TEST(Html, ScriptJsonKeepsTheValueAndNeverClosesTheElement) {
  const nlohmann::ordered_json j = {{"name", "</script><script>alert(1)</script>"}};
  const std::string text = ScriptJson(j);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(nlohmann::ordered_json::parse(text), j);
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(Html, TheRegisteredFormatInlinesThePinnedLibrariesWhole) {
  auto f = FindFormat("html");
  ASSERT_TRUE(f.ok());
  std::ostringstream out;
  (*f)->render(
      BuildReport(Hostile(), runtime::Registry().Params(), workload::Figures(), (*f)->parts), out);
  const std::string page = out.str();
  ASSERT_EQ(WebLibraries().size(), 3u);
  for (const WebLibrary& lib : WebLibraries()) {
    EXPECT_GT(lib.script.size(), 10000u) << lib.name;
    // Nothing in a library may end its <script> element early or open a comment there: a new
    // pinned version that does fails here.
    std::string lower(lib.script);
    for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    EXPECT_EQ(lower.find("</script"), std::string::npos) << lib.name;
    EXPECT_EQ(lower.find("<!--"), std::string::npos) << lib.name;
    EXPECT_NE(page.find(lib.script), std::string::npos) << lib.name;
    EXPECT_NE(page.find(fmt::format("/* {} {} (npm), inlined */", lib.name, lib.version)),
              std::string::npos);
  }
  EXPECT_EQ(WebLibraries()[0].name, "vega");
  EXPECT_EQ(WebLibraries()[1].name, "vega-lite");
  EXPECT_EQ(WebLibraries()[2].name, "vega-embed");
  // Nothing is loaded from anywhere: no src= on a script, no stylesheet link.
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(Count(page, "</script>"), Count(page, "<script"));
}

}  // namespace
}  // namespace pipette::report
