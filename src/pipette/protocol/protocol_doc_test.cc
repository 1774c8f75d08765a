// docs/protocol.md, the users' reference, against the protocol layer: every op documented under
// a heading "### `op`", no heading for an op that does not exist, and every field the typed
// structs write named in its op's section.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "pipette/protocol/ops.h"
#include "pipette/protocol/samples_for_tests.h"
#include "pipette/protocol/version.h"
#include "pipette/testing/paths.h"

namespace pipette::protocol {
namespace {

std::string Doc() {
  std::ifstream in(pipette::testing::SourceDir() + "/docs/protocol.md");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The text of each op's section: from its "### `op`" heading to the next heading of level 2 or
// 3, by op name, in the order documented.
std::vector<std::pair<std::string, std::string>> OpSections(const std::string& doc) {
  std::vector<std::pair<std::string, std::string>> sections;
  const std::regex heading(R"(^###\s+`([a-z0-9_]+)`)");
  std::istringstream lines(doc);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, heading)) {
      sections.emplace_back(m[1], "");
    } else if (line.rfind("## ", 0) == 0 || line.rfind("### ", 0) == 0) {
      sections.emplace_back("", "");  // another section: not an op's
    } else if (!sections.empty()) {
      sections.back().second += line + "\n";
    }
  }
  std::erase_if(sections, [](const auto& s) { return s.first.empty(); });
  return sections;
}

// Every key of `j`, and of the objects it holds (one level down), but not "op".
void Keys(const nlohmann::json& j, std::set<std::string>* out, int depth = 0) {
  if (j.is_array()) {
    for (const auto& item : j) Keys(item, out, depth);
    return;
  }
  if (!j.is_object()) return;
  for (const auto& [key, value] : j.items()) {
    if (key != "op") out->insert(key);
    if (depth == 0) Keys(value, out, depth + 1);
  }
}

TEST(ProtocolDoc, DocumentsEveryOpAndNoOther) {
  const auto sections = OpSections(Doc());
  ASSERT_FALSE(sections.empty()) << "no op headings found in docs/protocol.md";
  std::vector<std::string> documented, known;
  for (const auto& [name, text] : sections) documented.push_back(name);
  for (std::string_view name : Ops()) known.push_back(std::string(name));
  EXPECT_EQ(documented, known) << "docs/protocol.md's op headings (in order) differ from the "
                                  "protocol layer's ops (src/pipette/protocol/ops.cc)";
}

TEST(ProtocolDoc, NamesEveryFieldOfEveryOp) {
  std::map<std::string, std::string> text;
  for (const auto& [name, section] : OpSections(Doc())) text[name] += section;
  for (const testing::Sample& s : testing::AllSamples()) {
    std::set<std::string> fields;
    Keys(s.request, &fields);
    for (const auto& response : s.responses) Keys(nlohmann::json(response), &fields);
    // Runtime-specific fields of the samples (llama.cpp's), documented with the runtime.
    for (const char* own : {"system_info", "n_p_eval", "n_eval", "general.architecture"}) {
      fields.erase(own);
    }
    const std::string& section = text[s.op];
    for (const std::string& f : fields) {
      const bool named = section.find("\"" + f + "\"") != std::string::npos ||
                         section.find("`" + f + "`") != std::string::npos;
      EXPECT_TRUE(named) << "docs/protocol.md's section on `" << s.op << "` does not name the "
                         << "field '" << f << "'";
    }
  }
}

TEST(ProtocolDoc, StatesTheProtocolVersion) {
  EXPECT_NE(Doc().find("# Pipette worker protocol, version " + std::to_string(kProtocolVersion)),
            std::string::npos);
}

}  // namespace
}  // namespace pipette::protocol
