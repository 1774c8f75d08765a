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
  env::FakeProcessTable table(env::ProcessIdentity::Of("here", "m", "b", 100, 50));
  table.Start(200, 70);
  const std::string out = dir / "smol-Q8_0-abc.gguf";
  const std::string live = PartName(out, env::ProcessIdentity::Of("here", "m", "b", 200, 70));
  const std::string gone = PartName(out, env::ProcessIdentity::Of("here", "m", "b", 300, 10));
  const std::string reused =
      PartName(out, env::ProcessIdentity::Of("here", "m", "b", 200, 69));  // pid 200, later process
  const std::string old_gone = out + ".301-0badf00d.part";                 // Pipette 0.1.0's name
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

TEST(Maker, APartsOwnerNoteDecidesEvenAcrossHostsAndContainers) {
  const TempDir dir("pipette-maker-test");
  env::FakeProcessTable table(env::ProcessIdentity::Of("here", "m", "b", 100, 50, "pid:[1]"));
  auto make = [&](const std::string& name, const env::ProcessIdentity& owner) {
    const std::string part = dir / name;
    std::ofstream(part) << "x";
    std::ofstream(part + ".owner") << owner.ToJson().dump();
    return part;
  };
  const std::string gone = make("a.gguf.1-2-00000001.part",
                                env::ProcessIdentity::Of("here", "m", "b", 300, 10, "pid:[1]"));
  const std::string other_host =
      make("b.gguf.1-2-00000002.part", env::ProcessIdentity::Of("there", "n", "b", 300, 10));
  const std::string container = make(
      "c.gguf.1-2-00000003.part", env::ProcessIdentity::Of("here", "m", "b", 300, 10, "pid:[9]"));
  const std::string orphan_owner = dir / "d.gguf.1-2-00000004.part.owner";
  std::ofstream(orphan_owner)
      << env::ProcessIdentity::Of("here", "m", "b", 301, 10, "pid:[1]").ToJson().dump();
  const auto removed = RemoveAbandonedParts(dir.path().string(), table);
  EXPECT_EQ(removed, std::vector<std::string>{gone});
  EXPECT_FALSE(fs::exists(gone + ".owner"));
  EXPECT_FALSE(fs::exists(orphan_owner)) << "a note left without its part goes too";
  for (const auto& p : {other_host, container}) {
    EXPECT_TRUE(fs::exists(p)) << p;
    EXPECT_TRUE(fs::exists(p + ".owner")) << p;
  }
}

}  // namespace
}  // namespace pipette::quant
