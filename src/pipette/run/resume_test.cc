#include "pipette/run/resume.h"

#include <gtest/gtest.h>

#include "pipette/util/temp_dir.h"
#include "pipette/workload/kld/spec.h"
#include "pipette/workload/registry.h"

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

// A run whose first cell (the kld reference) is complete and whose second was cut short.
class ResumeReferences : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::Store::Open(dir_ / "r.db");
    ASSERT_TRUE(s.ok());
    store_ = std::move(*s);
    store::RunRecord r;
    r.environment_id = *store_->AddEnvironment({0, "fp", nlohmann::json::object()});
    auto id = store_->BeginRun(r);
    ASSERT_TRUE(id.ok()) << id.error().message;
    run_ = *id;
    plan_ = Plan(2);
    workload::SetKldSpec(&ex_,
                         workload::KldSpec{"m", "/c.txt", 512, 1, 16, 1, workload::KldMode::kTopK});
  }
  int64_t Cell(int index, const std::string& status) {
    store::CellRecord c = Stored(plan_, index, 0, status);
    c.run_id = run_;
    return *store_->BeginCell(c);
  }
  TempDir dir_{"pipette-resume-test"};
  std::unique_ptr<store::Store> store_;
  int64_t run_ = 0;
  std::vector<plan::Cell> plan_;
  config::Experiment ex_;
};

TEST_F(ResumeReferences, TheKeptReferenceIsTakenFromTheStore) {
  const int64_t ref = Cell(0, "ok");
  nlohmann::json raw = {{"top_ids", {{1, 2}, {3, 4}}},
                        {"request", {{"chunk", 0}, {"tokens_sha256", "abc"}}}};
  ASSERT_TRUE(store_->AddSample({0, ref, "kld_ref", 0, false, raw}).ok());
  ResumePlan plan;
  plan.run_id = run_;
  plan.done = {{0, ref}};
  plan.to_run = {1};
  ASSERT_TRUE(LoadReferences(*store_, ex_, plan_, workload::Registered(), &plan).ok());
  ASSERT_TRUE(plan.workload_state.count("kld"));
  const nlohmann::json& kld = plan.workload_state["kld"];
  EXPECT_EQ(kld["cell_id"], ref);
  EXPECT_EQ(kld["tokens_sha256"], "abc");
  ASSERT_EQ(kld["top_ids"].size(), 1u);
  EXPECT_EQ(kld["top_ids"][0], raw["top_ids"]);
  EXPECT_FALSE(plan.workload_state.count("gen"));  // no divergence reference asked
}

TEST_F(ResumeReferences, AReferenceWithoutItsTokenHashIsRefusedUpFront) {
  const int64_t ref = Cell(0, "ok");  // as Pipette 0.1.0 recorded it
  ASSERT_TRUE(
      store_
          ->AddSample(
              {0, ref, "kld_ref", 0, false, {{"top_ids", {{1}}}, {"request", {{"chunk", 0}}}}})
          .ok());
  ResumePlan plan;
  plan.run_id = run_;
  plan.done = {{0, ref}};
  plan.to_run = {1};
  Status st = LoadReferences(*store_, ex_, plan_, workload::Registered(), &plan);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, 2);
  EXPECT_NE(st.error().message.find("before store schema 2"), std::string::npos);
}

// A store edited by hand: reference samples of another shape read as absent (a sample that is no
// object, a hash of another type), so the resume is refused with its reason, never an exception.
TEST_F(ResumeReferences, StoredReferencesOfAnotherShapeAreNoCrash) {
  const int64_t ref = Cell(0, "ok");
  ASSERT_TRUE(store_->AddSample({0, ref, "kld", 0, false, "text"}).ok());
  ASSERT_TRUE(store_->AddSample({0, ref, "kld_ref", 0, false, nlohmann::json::array({1, 2})}).ok());
  ASSERT_TRUE(store_
                  ->AddSample({0,
                               ref,
                               "kld_ref",
                               1,
                               false,
                               {{"top_ids", {{1}}}, {"request", {{"tokens_sha256", 5}}}}})
                  .ok());
  ResumePlan plan;
  plan.run_id = run_;
  plan.done = {{0, ref}};
  plan.to_run = {1};
  Status st = Status();
  ASSERT_NO_THROW(st = LoadReferences(*store_, ex_, plan_, workload::Registered(), &plan));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, 2);
}

}  // namespace
}  // namespace pipette::run
