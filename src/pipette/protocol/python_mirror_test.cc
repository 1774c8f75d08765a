// workers/python/pipette_worker/protocol.py mirrors the protocol layer for Python workers: its
// PROTOCOL_VERSION must be kProtocolVersion (version.h) and its OPS must be Ops() (ops.cc), in
// order. A new op or version changes both, or this test fails.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "pipette/protocol/ops.h"
#include "pipette/protocol/version.h"
#include "pipette/testing/paths.h"
#include "pipette/util/files.h"
#include "pipette/util/result.h"

namespace pipette::protocol {
namespace {

std::string PythonMirror() {
  auto text = ReadFileToString(pipette::testing::SourceDir() +
                               "/workers/python/pipette_worker/protocol.py");
  return text ? *text : "";
}

// Ok when `text` (a protocol.py) states this protocol's version and ops; else what differs.
Status CheckMirror(const std::string& text) {
  std::smatch version;
  if (!std::regex_search(text, version, std::regex(R"(\nPROTOCOL_VERSION\s*=\s*(\d+)\s*\n)"))) {
    return Error{"protocol.py states no PROTOCOL_VERSION = <integer>"};
  }
  if (std::stoi(version[1]) != kProtocolVersion) {
    return Error{"protocol.py's PROTOCOL_VERSION is " + version[1].str() +
                 ", the protocol layer's " + std::to_string(kProtocolVersion)};
  }
  std::smatch tuple;
  if (!std::regex_search(text, tuple, std::regex(R"(\nOPS\s*=\s*\(([^)]*)\))"))) {
    return Error{"protocol.py states no OPS = (...)"};
  }
  std::vector<std::string> mirrored, known;
  const std::string items = tuple[1];
  const std::regex quoted(R"re("([^"]*)")re");
  for (auto it = std::sregex_iterator(items.begin(), items.end(), quoted);
       it != std::sregex_iterator(); ++it) {
    mirrored.push_back((*it)[1]);
  }
  for (std::string_view name : Ops()) known.emplace_back(name);
  if (mirrored != known) {
    auto join = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
      return s;
    };
    return Error{"protocol.py's OPS are (" + join(mirrored) + "), the protocol layer's (" +
                 join(known) + ")"};
  }
  return {};
}

TEST(PythonMirror, StatesTheProtocolsVersionAndOps) {
  const std::string text = PythonMirror();
  ASSERT_FALSE(text.empty()) << "cannot read workers/python/pipette_worker/protocol.py";
  const Status mirrored = CheckMirror(text);
  EXPECT_TRUE(mirrored.ok()) << mirrored.error().message;
}

TEST(PythonMirror, AnOtherVersionOrAMissingOpFails) {
  const std::string text = PythonMirror();
  const std::string version = "PROTOCOL_VERSION = " + std::to_string(kProtocolVersion);
  ASSERT_NE(text.find(version), std::string::npos);
  std::string bumped = text;
  bumped.replace(bumped.find(version), version.size(),
                 "PROTOCOL_VERSION = " + std::to_string(kProtocolVersion + 1));
  const Status other = CheckMirror(bumped);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("PROTOCOL_VERSION is"), std::string::npos);

  std::string fewer = text;
  const std::string chat = "    \"chat\",\n";
  ASSERT_NE(fewer.find(chat), std::string::npos);
  fewer.erase(fewer.find(chat), chat.size());
  const Status missing = CheckMirror(fewer);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("OPS are"), std::string::npos);

  EXPECT_FALSE(CheckMirror("").ok());
}

}  // namespace
}  // namespace pipette::protocol
