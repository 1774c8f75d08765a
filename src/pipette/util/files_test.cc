#include "pipette/util/files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace pipette {
namespace {
namespace fs = std::filesystem;

TEST(Files, WritesWholeFileAndCreatesFolders) {
  const fs::path dir = fs::temp_directory_path() / ("pipette-files-" + std::to_string(getpid()));
  const fs::path p = dir / "a" / "b.txt";
  ASSERT_TRUE(WriteFileAtomically(p.string(), "first").ok());
  ASSERT_TRUE(WriteFileAtomically(p.string(), "second").ok());
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(p.parent_path()), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(Files, UnwritablePlaceIsAnError) {
  EXPECT_FALSE(WriteFileAtomically("/proc/pipette-cannot-write-here", "x").ok());
}

}  // namespace
}  // namespace pipette
