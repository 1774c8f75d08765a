// Golden-output tests: every registered format rendered from one literal ReportData, each
// against tests/golden/report.FORMAT. To update a golden file after an intended change:
// PIPETTE_UPDATE_GOLDEN=1 build/pipette_unit_tests --gtest_filter='Golden*'
#include "pipette/report/formats.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "pipette/report/html.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/golden.h"
#include "pipette/workload/registry.h"

namespace pipette::report {
namespace {

ReportData Sample() {
  ReportData d;
  d.store_path = "results/pipette.db";
  d.generated_at = "2026-11-29T12:00:00Z";
  d.pipette_version = "0.1.0";
  store::RunRecord run;
  run.id = 1;
  run.name = "golden";
  run.experiment_path = "examples/golden.yaml";
  run.config_hash = "c0ffee";
  run.pipette_version = "0.1.0";
  run.pipette_commit = "abc123";
  run.environment_id = 1;
  run.started_at = "2026-11-29T11:59:00Z";
  run.finished_at = "2026-11-29T12:00:00Z";
  run.status = "done";
  run.n_cells = 2;
  d.runs.push_back(run);
  d.environments.push_back({1, "fp01", {{"cpu_model", "Test CPU"}, {"cpu_cores_logical", 2}}});
  store::CellRecord ok;
  ok.run_id = 1;
  ok.index = 0;
  ok.key = "model=smol,runtime=llama.cpp,threads=1";
  ok.status = "ok";
  ok.conditions = {{"load_avg_1", 0.25}};
  store::CellRecord bad = ok;
  bad.index = 1;
  bad.key = "model=smol,runtime=llama.cpp,threads=2";
  bad.status = "failed";
  bad.error = "the worker died during 'tg': killed by SIGKILL";
  bad.stderr_tail = "last words";
  bad.model_info["provenance"] = {
      {"type", "Q4_K_M"}, {"requantized", true}, {"base", {{"name", "smol"}, {"quant", "Q4_1"}}}};
  // Measured again by a resume: listed with its successor, in no figure and no failure note.
  store::CellRecord superseded = ok;
  superseded.index = 1;
  superseded.key = bad.key;
  superseded.status = "superseded";
  superseded.superseded_by = 12;
  superseded.finished_at = "2026-11-29T11:59:30Z";
  ok.environment_id = 1;
  d.cells = {ok, superseded, bad};
  d.warnings = {
      "run 1 cell 2 was measured while another Pipette was measuring on this machine "
      "(pid 4242 pipette-worker-llama): its speed and memory figures are not to be "
      "trusted"};
  run.resumes = 1;
  run.lock = {{"held", true}, {"path", "/tmp/pipette-measure.lock"}, {"waited_s", 0.5}};
  d.runs.back() = run;
  auto row = [](int cell, int64_t cell_id, const std::string& status, int threads,
                const std::string& test, const std::string& metric, const std::string& unit,
                std::vector<double> samples) {
    metrics::ResultRow r;
    auto& facts = r.EditCell();
    facts.run_id = 1;
    facts.cell_id = cell_id;
    facts.cell_index = cell;
    facts.cell_status = status;
    facts.model = "smol";
    facts.model_sha256 = "b179c952";
    facts.model_file_size = 98362432;
    facts.n_params = 134515008;
    facts.quant = "Q4_1";
    facts.runtime = "llama.cpp";
    facts.runtime_version = "0.3.36";
    facts.runtime_build = {{"llama_cpp_commit", "0c1e570"}};
    facts.device = "Test CPU";
    facts.device_id = "fp01";
    facts.params = {{"threads", threads}, {"n_batch", 512}};
    r.test = test;
    r.metric = metric;
    r.unit = unit;
    r.samples = samples;
    r.summary = stats::Summarize(samples);
    r.value = r.summary.median;
    return r;
  };
  d.rows = {row(0, 11, "ok", 1, "pp64", "throughput", "t/s", {1000, 1010, 990}),
            row(0, 11, "ok", 1, "tg16", "throughput", "t/s", {50, 60, 40}),
            row(0, 11, "ok", 1, "tg16", "itl_p50", "ms", {20, 16.5, 25}),
            row(0, 11, "ok", 1, "ttft@32", "ttft", "ms", {12.5, 12.25, 12.75}),
            row(0, 11, "ok", 1, "memory", "peak_rss", "bytes", {150000000}),
            row(1, 12, "failed", 2, "pp64", "throughput", "t/s", {1800, 1810})};
  // The second cell is a variant re-quantized from the first one's file.
  auto& facts = d.rows.back().EditCell();
  facts.model = "smol:Q4_K_M";
  facts.quant = "Q4_K_M";
  facts.quant_origin = "re-quantized from Q4_1";
  facts.untrusted =
      "measured while 1 other Pipette measured on the machine (pid 4242 pipette-worker-llama)";
  metrics::ResultRow ppl = row(0, 11, "ok", 1, "ppl", "ppl", "", {17.5, 19.25});
  ppl.value = 18.125;
  ppl.std_error = 0.75;
  ppl.dataset = "datasets/ppl/corpus.txt";
  ppl.dataset_sha256 = "d00d";
  d.rows.insert(d.rows.begin() + 4, ppl);
  metrics::ResultRow mc = row(0, 11, "ok", 1, "mc", "acc", "fraction", {1, 0, 1, 1});
  mc.value = 0.75;
  mc.ci_low = 0.30063;
  mc.ci_high = 0.95441;
  mc.subset = "";
  mc.summary = {};
  mc.summary.n = 4;
  d.rows.insert(d.rows.begin() + 5, mc);
  // A phase the runtime does not serve: n/a with the reason (metrics/derive.cc).
  metrics::ResultRow na = row(0, 11, "ok", 1, "gen", "all", "", {});
  na.na_reason = "runtime 'llama.cpp' does not serve op 'chat'";
  d.rows.insert(d.rows.begin() + 6, na);
  metrics::McItemRow item;
  item.run_id = 1;
  item.cell_id = 11;
  item.cell_index = 0;
  item.model = "smol";
  item.quant = "Q4_1";
  item.item = 0;
  item.id = "en-1";
  item.language = "en";
  item.task_type = "fact";
  item.answer = 1;
  item.choices = {{-4.5, 2, 5}, {-2.25, 1, 3}};
  item.pick = {1, 1};
  item.correct = item.correct_norm = true;
  d.mc_items.push_back(item);
  // base_model is Pipette's name for the model a variant was made from (smol), or for the model
  // itself; the files' GGUF general.name only groups them.
  for (auto& r : d.rows) {
    r.EditCell().base_model = "smol";
    r.EditCell().family = "SmolLM2 135M Instruct";
  }
  return d;
}

// The number of '|' that separate cells in a Markdown table line (not those escaped with '\').
int Separators(const std::string& line) {
  int n = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == '|') {
      ++n;
    }
  }
  return n;
}

std::string Render(const std::string& format, const ReportData& data) {
  auto f = FindFormat(format);
  EXPECT_TRUE(f.ok()) << format;
  if (!f) return "";
  std::ostringstream out;
  const Report report =
      BuildReport(data, runtime::Registry().Params(), workload::Figures(), (*f)->parts);
  if (format == "html") {
    // The golden file holds Pipette's page, not the libraries it inlines (html_test.cc checks
    // that the registered renderer inlines them).
    RenderHtmlPage(report, {{"vega-libraries", "pinned", "/* left out of the golden file */"}},
                   out);
  } else {
    (*f)->render(report, out);
  }
  return out.str();
}

void CheckGolden(const std::string& format) {
  testing::ExpectGolden(Render(format, Sample()), "report." + format);
}

// Every registered format, each against its file: a format added without one fails here.
TEST(Golden, EveryRegisteredFormat) {
  for (const Format& f : Formats()) {
    SCOPED_TRACE(std::string(f.name));
    EXPECT_FALSE(f.help.empty());
    CheckGolden(std::string(f.name));
  }
  for (const char* name : {"md", "csv", "json", "jsonl", "sql", "html"}) {
    EXPECT_TRUE(FindFormat(name).ok()) << name;
  }
}

// The json format writes its text as it goes: exactly the dump(2) of the document built whole
// (RowObject per row), with rows, without rows and with none at all.
TEST(Json, WrittenAsItGoesIsTheWholeDocumentsDump) {
  ReportData empty;
  ReportData no_results = Sample();
  no_results.rows.clear();
  for (const ReportData& data : {Sample(), no_results, empty}) {
    const Report report = BuildReport(data, runtime::Registry().Params(), workload::Figures());
    nlohmann::ordered_json doc;
    doc["schema"] = report.schema;
    doc["schema_version"] = report.schema_version;
    doc["generated_at"] = report.generated_at;
    doc["pipette_version"] = report.pipette_version;
    doc["store"] = report.store;
    doc["warnings"] = report.warnings;
    for (const Table* t :
         {&report.runs, &report.environments, &report.cells, &report.results, &report.mc_items}) {
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (const Row& row : t->rows) rows.push_back(RowObject(*t, row));
      doc[t->name] = std::move(rows);
    }
    EXPECT_EQ(Render("json", data), doc.dump(2) + "\n");
  }
}

// md renders the console table only: the report it is given need not hold the data tables; each
// format renders from its own parts what it renders from the whole (kPage holds everything).
TEST(Formats, MdIsTheSummaryAloneAndTheOthersEveryTable) {
  const ReportData data = Sample();
  const Report summary =
      BuildReport(data, runtime::Registry().Params(), workload::Figures(), ReportParts::kSummary);
  EXPECT_TRUE(summary.results.rows.empty());
  EXPECT_TRUE(summary.cells.rows.empty());
  EXPECT_FALSE(summary.summary.rows.empty());
  for (const Format& f : Formats()) {
    SCOPED_TRACE(std::string(f.name));
    std::ostringstream whole, part;
    f.render(
        BuildReport(data, runtime::Registry().Params(), workload::Figures(), ReportParts::kPage),
        whole);
    f.render(BuildReport(data, runtime::Registry().Params(), workload::Figures(), f.parts), part);
    EXPECT_EQ(part.str(), whole.str());
  }
  EXPECT_EQ((*FindFormat("md"))->parts, ReportParts::kSummary);
}

TEST(Markdown, EscapesWhatWouldBreakATable) {
  ReportData d = Sample();
  for (auto& r : d.rows) r.EditCell().model = "a|b";
  d.rows.front().EditCell().runtime_version = "0.3\n| x |";
  d.cells[2].error = "the worker died:\n---\n| stderr | tail |";
  d.cells[2].key = "model=a|b,threads=2";
  const std::string md = Render("md", d);
  std::stringstream lines(md);
  int table_lines = 0, header_separators = -1;
  std::string line;
  while (std::getline(lines, line) && line.starts_with("|")) {
    if (header_separators < 0) header_separators = Separators(line);
    EXPECT_EQ(Separators(line), header_separators) << line;
    ++table_lines;
  }
  EXPECT_EQ(table_lines, 2 + 5);  // header, delimiter, the five rows: no row broke in two
  EXPECT_NE(md.find("| a\\|b "), std::string::npos) << md;
  // The failure note stays one line, and its key one more.
  EXPECT_NE(md.find("cell 2 FAILED: the worker died: --- \\| stderr \\| tail \\|\n"
                    "  model=a\\|b,threads=2\n"),
            std::string::npos)
      << md;
}

TEST(Formats, UnknownFormatIsNamedWithTheNearestAndEveryName) {
  auto r = FindFormat("jsno");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, 2);
  EXPECT_EQ(r.error().message,
            "unknown report format 'jsno' (did you mean 'json'?) (formats: " + FormatList() + ")");
  EXPECT_EQ(FormatList("|").rfind("md|csv|json|", 0), 0u);
}

}  // namespace
}  // namespace pipette::report
