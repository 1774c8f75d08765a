#include "pipette/quant/maker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "pipette/util/temp_dir.h"

namespace pipette::quant {
namespace {
namespace fs = std::filesystem;

TEST(Maker, PartFilesOfGoneMakersAreRemovedAndThoseOfLiveOnesKept) {
  const TempDir dir("pipette-maker-test");
  env::FakeProcessTable table({"here", "m", "b", 100, 50});
  table.Start(200, 70);
  const std::string out = dir / "smol-Q8_0-abc.gguf";
  const std::string live = PartName(out, {"here", "m", "b", 200, 70});
  const std::string gone = PartName(out, {"here", "m", "b", 300, 10});
  const std::string reused = PartName(out, {"here", "m", "b", 200, 69});  // pid 200, later process
  const std::string old_gone = out + ".301-0badf00d.part";                // Pipette 0.1.0's name
  const std::string old_live = out + ".200-0badf00d.part";  // a live pid: maybe its maker
  const std::string other = dir / "notes.part";             // not a maker's file
  for (const auto& p : {live, gone, reused, old_gone, old_live, other, out}) {
    std::ofstream(p) << "x";
  }
  auto removed = RemoveAbandonedParts(dir.path().string(), table);
  std::sort(removed.begin(), removed.end());
  std::vector<std::string> expected = {gone, reused, old_gone};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(removed, expected);
  for (const auto& p : {live, old_live, other, out}) EXPECT_TRUE(fs::exists(p)) << p;
  for (const auto& p : expected) EXPECT_FALSE(fs::exists(p)) << p;
}

}  // namespace
}  // namespace pipette::quant
