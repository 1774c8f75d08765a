// Issue 39's layering: the folders of src/pipette in their intended order, lowest first. A file
// may include its own folder and any folder before it, never one after it: so the folder graph
// has no cycle and no include points upward. A dependency the order does not allow is passed
// down as a parameter (a registry, the figure catalogue), never fetched from above.
//
// The includes that still point upward are listed, each with what removes it; the test fails on
// any other, and on a listed one that is gone (the list only shrinks). Tests (*_test.cc) may
// include anything: a test of config/ may use the workloads Pipette ships, and one of workload/
// the fake worker; only the code they test is held to the order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pipette/testing/paths.h"

namespace pipette {
namespace {

namespace fs = std::filesystem;

// Lowest first. "." is src/pipette itself (build_info.h).
const std::vector<std::string>& Order() {
  static const std::vector<std::string> order = {
      ".",        "util",          "sandbox",     "stats",     "model",    "http",
      "protocol", "quality",       "sensitivity", "env",       "worker",   "store",
      "device",   "testing",       "runtime",     "endpoint",  "estimate", "quant",
      "convert",  "model_formats", "config",      "plan",      "metrics",  "workload",
      "report",   "compare",       "select",      "reproduce", "run",      "app",
  };
  return order;
}

// Upward includes still owed (file relative to src/pipette -> the header it includes).
const std::set<std::pair<std::string, std::string>>& Owed() {
  static const std::set<std::pair<std::string, std::string>> owed = {};
  return owed;
}

std::string FolderOf(const std::string& relative) {
  const size_t slash = relative.find('/');
  return slash == std::string::npos ? "." : relative.substr(0, slash);
}

struct Include {
  std::string file;    // relative to src/pipette
  std::string header;  // as included, after "pipette/"
};

// Tests and the helpers only tests include (*_testing.h) may include anything.
bool IsTestFile(const std::string& name) {
  return name.ends_with("_test.cc") || name.ends_with("_testing.h");
}

std::vector<Include> Includes() {
  const fs::path root = fs::path(testing::SourceDir()) / "src" / "pipette";
  const std::regex include(R"re(^\s*#\s*include\s*"pipette/([^"]+)")re");
  std::vector<Include> out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || IsTestFile(name)) continue;
    if (!name.ends_with(".cc") && !name.ends_with(".h") && !name.ends_with(".in")) continue;
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_search(line, m, include)) {
        out.push_back({fs::relative(entry.path(), root).string(), m[1].str()});
      }
    }
  }
  return out;
}

size_t Rank(const std::string& folder) {
  const auto& order = Order();
  return static_cast<size_t>(std::find(order.begin(), order.end(), folder) - order.begin());
}

// The includes of `includes` that point upward: to a folder after the includer's (or to none
// the order knows).
std::set<std::pair<std::string, std::string>> Upward(const std::vector<Include>& includes) {
  std::set<std::pair<std::string, std::string>> upward;
  for (const Include& inc : includes) {
    if (Rank(FolderOf(inc.header)) > Rank(FolderOf(inc.file)))
      upward.insert({inc.file, inc.header});
  }
  return upward;
}

TEST(Layering, EveryFolderHasItsPlace) {
  const fs::path root = fs::path(testing::SourceDir()) / "src" / "pipette";
  for (const auto& entry : fs::directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    const std::string folder = entry.path().filename().string();
    EXPECT_LT(Rank(folder), Order().size())
        << "src/pipette/" << folder << " is not in the layering order (app/layering_test.cc)";
  }
  for (const std::string& folder : Order()) {
    EXPECT_TRUE(fs::is_directory(root / folder)) << folder << " is in the order but not a folder";
  }
}

TEST(Layering, NoIncludePointsUpward) {
  const std::vector<Include> includes = Includes();
  ASSERT_GT(includes.size(), 500u);  // the scan read the sources
  for (const Include& inc : includes) {
    ASSERT_LT(Rank(FolderOf(inc.header)), Order().size()) << inc.file << " includes " << inc.header;
  }
  const auto upward = Upward(includes);
  for (const auto& [file, header] : upward) {
    if (!Owed().count({file, header})) {
      ADD_FAILURE() << "src/pipette/" << file << " includes pipette/" << header << ": "
                    << FolderOf(header) << "/ comes after " << FolderOf(file)
                    << "/ (pass the dependency down instead)";
    }
  }
  for (const auto& [file, header] : Owed()) {
    EXPECT_TRUE(upward.count({file, header}))
        << "src/pipette/" << file << " no longer includes pipette/" << header
        << ": take it off Owed()";
  }
}

// A *_testing.h, which may include anything, is for tests: no other file includes one.
TEST(Layering, OnlyTestsIncludeTestHelpers) {
  for (const Include& inc : Includes()) {
    EXPECT_FALSE(inc.header.ends_with("_testing.h"))
        << "src/pipette/" << inc.file << " includes pipette/" << inc.header
        << ", a helper for tests";
  }
}

// The check catches a made-up upward include, and lets a downward one and one within a folder be.
TEST(Layering, AMadeUpUpwardIncludeIsCaught) {
  const auto upward = Upward({{"util/x.cc", "workload/y.h"},
                              {"workload/y.cc", "util/x.h"},
                              {"metrics/a.cc", "metrics/b.h"},
                              {"plan/p.cc", "run/runner.h"}});
  EXPECT_EQ(upward, (std::set<std::pair<std::string, std::string>>{{"util/x.cc", "workload/y.h"},
                                                                   {"plan/p.cc", "run/runner.h"}}));
}

// The global registries and what is assembled from them, each with the file that defines it:
// only app/ calls them (and tests); below app/ they are parameters.
const std::vector<std::pair<std::string, std::string>>& Globals() {
  static const std::vector<std::pair<std::string, std::string>> globals = {
      {"runtime::Registry()", "runtime/registry.cc"},
      {"ParamRegistry::Default()", "runtime/registry.cc"},
      {"workload::MakeWorkloads", "workload/registry.cc"},
      {"workload::QualitySpecs()", "workload/registry.cc"},
      {"workload::Registered()", "workload/registry.cc"},
      {"workload::Derivers()", "workload/registry.cc"},
      {"workload::Headlines()", "workload/registry.cc"},
      {"workload::Figures()", "workload/registry.cc"},
      {"workload::PlanNeeds()", "workload/registry.cc"},
      {"device::DeviceKinds()", "device/registry.cc"},
      {"report::Formats()", "report/formats.cc"},
      {"model_formats::Registry()", "model_formats/registry.cc"},
      {"speed::TestKinds()", "workload/speed/test_kinds.cc"},
      {"report::FindFormat(", "report/formats.cc"},
      {"report::FormatNames(", "report/formats.cc"},
      {"report::FormatList(", "report/formats.cc"},
  };
  return globals;
}

// `line` calls `global` (not in a comment). Within the global's own folder it may be written
// unqualified ("TestKinds()" for "speed::TestKinds()"): `own_folder` says the line's file is
// there, and then the unqualified name counts too, unless it follows a type (a declaration).
bool Calls(const std::string& line, const std::string& global, bool own_folder = false) {
  auto called = [&](const std::string& name, bool unqualified) {
    for (size_t at = line.find(name); at != std::string::npos; at = line.find(name, at + 1)) {
      const size_t comment = line.find("//");
      if (comment != std::string::npos && comment < at) return false;
      if (!unqualified) return true;
      const char before = at == 0 ? ' ' : line[at - 1];
      if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == ':') {
        continue;  // part of another name, or qualified (the check above has it)
      }
      static const std::regex declared(R"(^\s*(const\s+)?[\w:<>]+\s*&?\s*$)");
      if (std::regex_match(line.substr(0, at), declared)) continue;  // `const T& Name();`
      return true;
    }
    return false;
  };
  if (called(global, false)) return true;
  const size_t colons = global.rfind("::");
  return own_folder && colons != std::string::npos && called(global.substr(colons + 2), true);
}

TEST(Layering, NoGlobalRegistryIsCalledBelowApp) {
  const fs::path root = fs::path(testing::SourceDir()) / "src" / "pipette";
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || IsTestFile(name)) continue;
    if (!name.ends_with(".cc") && !name.ends_with(".h")) continue;
    const std::string file = fs::relative(entry.path(), root).string();
    if (FolderOf(file) == "app" || FolderOf(file) == "testing") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      for (const auto& [global, home] : Globals()) {
        if (file == home) continue;  // its file defines it
        const bool own_folder =
            fs::path(file).parent_path() == fs::path(home).parent_path() && name.ends_with(".cc");
        if (Calls(line, global, own_folder)) {
          ADD_FAILURE() << "src/pipette/" << file << ":" << n << " calls " << global
                        << " below app/ (take it as a parameter)";
        }
      }
    }
  }
  EXPECT_GT(files, 300);  // the scan read the sources
}

TEST(Layering, ACallInACommentIsNoCall) {
  EXPECT_TRUE(Calls("  auto r = runtime::Registry().Find(x);", "runtime::Registry()"));
  EXPECT_FALSE(Calls("  // (runtime::Registry() from app/)", "runtime::Registry()"));
  EXPECT_FALSE(Calls("  int x = 0;", "runtime::Registry()"));
}

// In the global's own folder the unqualified name is a call too, but not a declaration of it,
// nor another name that ends the same way.
TEST(Layering, AnUnqualifiedCallInTheGlobalsFolderIsACall) {
  const std::string g = "speed::TestKinds()";
  EXPECT_TRUE(Calls("  return NewSpeed(TestKinds());", g, true));
  EXPECT_TRUE(Calls("  for (const auto& k : TestKinds()) {", g, true));
  EXPECT_FALSE(Calls("  return NewSpeed(TestKinds());", g, false));   // another folder
  EXPECT_FALSE(Calls("const TestKindTable& TestKinds();", g, true));  // its declaration
  EXPECT_FALSE(Calls("  auto t = MyTestKinds();", g, true));
  EXPECT_FALSE(Calls("  // TestKinds() is the table", g, true));
}

TEST(Layering, TheOrderRanksLowerFoldersFirst) {
  EXPECT_LT(Rank("util"), Rank("config"));
  EXPECT_LT(Rank("runtime"), Rank("config"));        // ParamDef lives beside the runtimes
  EXPECT_LT(Rank("endpoint"), Rank("config"));       // EndpointSpec beside the endpoint
  EXPECT_LT(Rank("model_formats"), Rank("config"));  // the formats are passed to resolve
  EXPECT_LT(Rank("metrics"), Rank("workload"));
  EXPECT_LT(Rank("workload"), Rank("run"));
  EXPECT_LT(Rank("report"), Rank("compare"));  // compare's tables are rendered by report/
  EXPECT_EQ(Rank("no-such-folder"), Order().size());
}

}  // namespace
}  // namespace pipette
