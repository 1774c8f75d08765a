// Issue 39's rule, "a figure's meaning lives with the workload that makes it": compare/, select/,
// reproduce/ and report/ read a figure's meaning from the catalogue (workload::Figures()) and name
// no workload's figure as a string literal (the report but for its own columns and sections). The
// names are the catalogue's own: every metric, every test of one name, and the literal part of each
// family of tests ("tg" of "tg<N>"), so a figure a workload declares tomorrow is covered without
// editing this test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "pipette/testing/paths.h"
#include "pipette/workload/registry.h"

namespace pipette::workload {
namespace {

namespace fs = std::filesystem;

// The string literals of C++ source, comments left out: "..." and R"d(...)d", as written between
// the quotes. Character literals are skipped so that '"' opens nothing.
std::vector<std::string> StringLiterals(const std::string& src) {
  std::vector<std::string> out;
  size_t i = 0;
  const size_t n = src.size();
  while (i < n) {
    const char c = src[i];
    if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      i = src.find('\n', i);
      if (i == std::string::npos) break;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      i = src.find("*/", i + 2);
      if (i == std::string::npos) break;
      i += 2;
    } else if (c == 'R' && i + 1 < n && src[i + 1] == '"') {
      const size_t open = src.find('(', i + 2);
      if (open == std::string::npos) break;
      const std::string close = ")" + src.substr(i + 2, open - i - 2) + "\"";
      const size_t end = src.find(close, open + 1);
      if (end == std::string::npos) break;
      out.push_back(src.substr(open + 1, end - open - 1));
      i = end + close.size();
    } else if (c == '"' || c == '\'') {
      std::string lit;
      ++i;
      while (i < n && src[i] != c) {
        if (src[i] == '\\' && i + 1 < n) lit += src[i++];
        lit += src[i++];
      }
      ++i;
      if (c == '"') out.push_back(lit);
    } else {
      ++i;
    }
  }
  return out;
}

// Every name a workload's figure goes by.
std::set<std::string> FigureNames() {
  std::set<std::string> names;
  for (const metrics::FigureDef& d : Figures().defs()) {
    names.insert(d.metric);
    names.insert(d.test.substr(0, d.test.find('<')));  // "tg" of "tg<N>", "ppl" of "ppl"
  }
  names.erase("");
  // A cell's dimensions, which rows, columns and keys name too: the test "model" (file_size) is
  // left to its metric's name.
  for (const char* dimension : {"model", "quant", "runtime", "device"}) names.erase(dimension);
  return names;
}

// file (relative to src/pipette) -> the figure names it gives as literals.
std::map<std::string, std::set<std::string>> NamedIn(const std::vector<std::string>& folders) {
  const std::set<std::string> names = FigureNames();
  const fs::path root = fs::path(testing::SourceDir()) / "src" / "pipette";
  std::map<std::string, std::set<std::string>> found;
  for (const std::string& folder : folders) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      const std::string file = entry.path().filename().string();
      // Tests and their helpers (*_testing.h: select_rows_testing.h) build rows of known figures.
      if (!entry.is_regular_file() || file.ends_with("_test.cc") || file.ends_with("_testing.h"))
        continue;
      if (!file.ends_with(".cc") && !file.ends_with(".h")) continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      for (const std::string& lit : StringLiterals(text.str())) {
        if (names.count(lit)) found[fs::relative(entry.path(), root).string()].insert(lit);
      }
    }
  }
  return found;
}

TEST(FigureLiteralsTest, TheScannerFindsLiteralsAndSkipsComments) {
  const auto lits = StringLiterals(
      "// \"ppl\" in a comment\n/* \"acc\" */ f(\"throughput\", '\"', R\"x(peak_rss)x\", "
      "\"a\\\"b\");");
  EXPECT_EQ(lits, (std::vector<std::string>{"throughput", "peak_rss", "a\\\"b"}));
}

TEST(FigureLiteralsTest, TheNamesAreTheCataloguesOwn) {
  const std::set<std::string> names = FigureNames();
  for (const char* n : {"ppl", "kld_mean", "throughput", "peak_rss", "tg", "pp", "sustained",
                        "decay", "ms_per_kchar", "acc"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
}

TEST(FigureLiteralsTest, CompareSelectAndReproduceNameNoFigure) {
  const auto found = NamedIn({"compare", "select", "reproduce"});
  for (const auto& [file, lits] : found) {
    for (const std::string& lit : lits)
      ADD_FAILURE() << file << " names the figure \"" << lit << "\"";
  }
}

// The report reads every figure from the catalogue too (metrics::Shown). What it still writes as a
// figure's name is a name of its own output: a column's title, a section's or table's id, a key of
// the prediction's JSON (all in the goldens). Those are listed here; any other fails.
TEST(FigureLiteralsTest, TheReportNamesNoFigureButItsOwnColumnsAndSections) {
  const std::map<std::string, std::set<std::string>> own_names = {
      // the context-growth table's "bw_util" column, the sustained table's name and its "power"
      // column
      {"report/curves.cc", {"bw_util", "power", "sustained"}},
      // the chart ids "memory-<figure>"
      {"report/page_quality.cc", {"memory"}},
      // the section "sustained"
      {"report/page_speed.cc", {"sustained"}},
      // the prediction table's columns and JSON keys
      {"report/predict_view.cc", {"bw_util", "bytes_per_token"}},
  };
  EXPECT_EQ(NamedIn({"report"}), own_names);
}

}  // namespace
}  // namespace pipette::workload
