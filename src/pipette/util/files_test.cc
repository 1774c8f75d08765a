#include "pipette/util/files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipette/util/temp_dir.h"

namespace pipette {
namespace {
namespace fs = std::filesystem;

TEST(Files, WritesWholeFileAndCreatesFolders) {
  const TempDir dir("pipette-files");
  const fs::path p = dir.path() / "a" / "b.txt";
  ASSERT_TRUE(WriteFileAtomically(p.string(), "first").ok());
  ASSERT_TRUE(WriteFileAtomically(p.string(), "second").ok());
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(p.parent_path()), fs::directory_iterator()), 1);
}

TEST(Files, UnwritablePlaceIsAnError) {
  EXPECT_FALSE(WriteFileAtomically("/proc/pipette-cannot-write-here", "x").ok());
}

TEST(Files, AFolderOrAMissingFileIsAnErrorNamingThePathNotAnException) {
  const TempDir dir("pipette-files");
  auto folder = ReadFileToString(dir.path().string());
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().message, "cannot read " + dir.path().string() + ": a folder");
  const std::string missing = (dir.path() / "nope.yaml").string();
  auto none = ReadFileToString(missing);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "cannot read " + missing + ": no such file");
  EXPECT_EQ(none.error().context.file, missing);
  ASSERT_TRUE(WriteFileAtomically((dir.path() / "a.txt").string(), "text").ok());
  EXPECT_EQ(*ReadFileToString((dir.path() / "a.txt").string()), "text");
}

// Files of /proc say their size is 0: they are read whole all the same.
TEST(Files, AProcFileIsReadWhole) {
  auto status = ReadFileToString("/proc/self/status");
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_NE(status->find("VmHWM:"), std::string::npos);
}

}  // namespace
}  // namespace pipette
