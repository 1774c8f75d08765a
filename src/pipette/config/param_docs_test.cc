#include "pipette/config/param_docs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "pipette/testing/paths.h"

namespace pipette::config {
namespace {

constexpr std::string_view kBegin = "<!-- parameters: begin";
constexpr std::string_view kEnd = "<!-- parameters: end -->";

// The table between the markers in docs/config.md, or "" without them.
std::string DocumentedTable() {
  std::ifstream in(pipette::testing::SourceDir() + "/docs/config.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const size_t begin = doc.find(kBegin);
  const size_t end = doc.find(kEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) return "";
  const size_t from = doc.find('\n', begin) + 1;
  return doc.substr(from, end - from);
}

TEST(ParamDocs, ConfigMdHoldsTheRegistrysTable) {
  const std::string want = ParamTableMarkdown(runtime::ParamRegistry::Default());
  EXPECT_EQ(DocumentedTable(), want)
      << "docs/config.md's parameter table (between '" << kBegin << "' and '" << kEnd
      << "') is not the registry's: replace it with\n"
      << want;
}

TEST(ParamDocs, TypesAndRows) {
  const runtime::ParamRegistry r = runtime::ParamRegistry::Default();
  EXPECT_EQ(ParamTypeText(*r.Find("threads"), true), "int 1–1024");
  EXPECT_EQ(ParamTypeText(*r.Find("swa_full"), true), "bool");
  EXPECT_EQ(ParamTypeText(*r.Find("flash_attn"), false),
            "auto, on, off (true = on, false = off, enabled = on, disabled = off)");
  EXPECT_EQ(ParamTypeText(*r.Find("flash_attn"), true).substr(0, 21), "`auto`, `on`, `off` (");
  const std::string table = ParamTableMarkdown(r);
  EXPECT_EQ(table.substr(0, table.find('\n')),
            "| parameter | runtimes | type | stage | default (when not set) | meaning |");
  EXPECT_NE(table.find("| `swa_full` | llama.cpp | bool | context | libllama's: `true`"),
            std::string::npos);
  EXPECT_NE(table.find("| `n_ctx` | every (Pipette's) | int 0–16777216 |"), std::string::npos);
  // One row per parameter, after the header and its delimiter.
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), int(r.defs().size()) + 2);
}

TEST(ParamDocs, HelpSaysEveryParameterAndItsOtherNames) {
  const runtime::ParamRegistry r = runtime::ParamRegistry::Default();
  const std::string help = ParamHelpText(r);
  for (const runtime::ParamDef& d : r.defs()) {
    EXPECT_NE(help.find("\n" + d.name + " ("), std::string::npos) << d.name;
  }
  EXPECT_NE(help.find("swa_full (bool; context stage)\n  runtimes: llama.cpp\n"), std::string::npos)
      << help;
  EXPECT_NE(help.find("depth (int 0–16777216; test stage)\n  runtimes: every (Pipette's)\n"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("other tools' names: n_threads, n_thread, t,"), std::string::npos) << help;
  EXPECT_EQ(help.find('`'), std::string::npos) << "no Markdown in a terminal";
  for (size_t start = 0, end; start < help.size(); start = end + 1) {
    end = help.find('\n', start);
    if (end == std::string::npos) end = help.size();
    EXPECT_LE(end - start, 100u) << help.substr(start, end - start);
  }
}

}  // namespace
}  // namespace pipette::config
