#include "pipette/run/resume.h"

#include <gtest/gtest.h>

namespace pipette::run {
namespace {

std::vector<plan::Cell> Plan(int n) {
  std::vector<plan::Cell> cells(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    cells[static_cast<size_t>(i)].index = i;
    cells[static_cast<size_t>(i)].model.name = "m";
    cells[static_cast<size_t>(i)].runtime.name = "llama.cpp";
    cells[static_cast<size_t>(i)].params = {{"threads", std::to_string(i + 1)}};
  }
  return cells;
}

store::CellRecord Stored(const std::vector<plan::Cell>& plan, int index, int64_t id,
                         const std::string& status) {
  store::CellRecord c;
  c.id = id;
  c.index = index;
  c.key = plan[static_cast<size_t>(index)].Key();
  c.status = status;
  return c;
}

TEST(Resume, MeasuresWhatHasNoCompleteResultAndKeepsTheRest) {
  const auto plan = Plan(6);
  // 0 ok; 1 cut short then measured again and ok; 2 interrupted; 3 abandoned; 4 failed; 5 never
  // started.
  const std::vector<store::CellRecord> stored = {
      Stored(plan, 0, 1, "ok"),        Stored(plan, 1, 2, "superseded"),
      Stored(plan, 1, 7, "ok"),        Stored(plan, 2, 3, "interrupted"),
      Stored(plan, 3, 4, "abandoned"), Stored(plan, 4, 5, "failed")};
  auto rp = PlanResume(plan, stored, /*retry_failed=*/false);
  ASSERT_TRUE(rp.ok()) << rp.error().message;
  EXPECT_EQ(rp->to_run, (std::vector<int>{2, 3, 5}));
  EXPECT_EQ(rp->done, (std::map<int, int64_t>{{0, 1}, {1, 7}}));
  EXPECT_EQ(rp->supersede, (std::map<int, int64_t>{{2, 3}, {3, 4}}));
  EXPECT_EQ(rp->failed_kept, 1);

  auto retry = PlanResume(plan, stored, /*retry_failed=*/true);
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ(retry->to_run, (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(retry->supersede.at(4), 5);
  EXPECT_EQ(retry->failed_kept, 0);
}

TEST(Resume, ARunOfAnotherPlanIsRefusedSayingWhatDiffers) {
  const auto plan = Plan(2);
  auto other = Plan(2);
  other[1].params = {{"threads", "8"}};
  auto rp = PlanResume(plan, {Stored(plan, 0, 1, "ok"), Stored(other, 1, 2, "running")}, false);
  ASSERT_FALSE(rp.ok());
  EXPECT_EQ(rp.error().exit_code, 2);
  EXPECT_NE(rp.error().message.find("cell 2 of the run was model=m,runtime=llama.cpp,threads=8"),
            std::string::npos)
      << rp.error().message;
  auto beyond = PlanResume(Plan(1), {Stored(plan, 1, 2, "ok")}, false);
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.error().message.find("makes 1 cell(s)"), std::string::npos);
}

TEST(Resume, DifferencesOfTheResolvedExperimentAreNamed) {
  EXPECT_EQ(DescribeDifference(R"({"tests":["pp16"],"seed":1})", R"({"tests":["pp16"],"seed":1})"),
            "");
  EXPECT_EQ(DescribeDifference(R"({"tests":["pp16"],"seed":1})",
                               R"({"tests":["pp16","tg4"],"seed":1,"warmup":2})"),
            R"(tests: ["pp16"] then, ["pp16","tg4"] now; warmup: (none) then, 2 now)");
  EXPECT_EQ(DescribeDifference("", R"({"a":1})"), "");  // a run that recorded nothing
}

}  // namespace
}  // namespace pipette::run
