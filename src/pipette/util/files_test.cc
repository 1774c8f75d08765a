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

}  // namespace
}  // namespace pipette
