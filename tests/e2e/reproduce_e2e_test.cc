// `pipette reproduce RUN` through the CLI on a run made in the test: the quality figures of the run
// again are bit-identical (the same model, build and threads on this machine), the speed figures
// are checked against the noise band — whether they land in it depends on the machine's load, so
// the test asserts only that a miss is a speed or memory figure's and says why —, an experiment
// file edited since the run is run as it was stored, and bad input exits 2.
#include <gtest/gtest.h>

#include "fixture.h"

namespace pipette_e2e {
namespace {

class ReproduceE2E : public E2E {
 protected:
  void SetUp() override {
    E2E::SetUp();
    ex_ = Write("ex.yaml",
                "models: [smollm2-135m-instruct-q4_1]\n"
                "params: {threads: 1}\n"
                "tests: [tg4]\n"
                "repetitions: 3\n"
                "warmup: 0\n"
                "quality:\n"
                "  ppl: {chunks: 2}\n"
                "  mc: {limit: 4}\n");
    Output run = Pipette({"run", ex_.string(), "--store", Store(), "--no-bandwidth"});
    ASSERT_EQ(run.code, 0) << run.err;
  }
  fs::path ex_;
};

TEST_F(ReproduceE2E, QualityIsBitIdenticalAndAMissIsASpeedFiguresWithItsReason) {
  // Edited since: the run again is of the experiment as stored (tg4, not tg8).
  Write("ex.yaml",
        "models: [smollm2-135m-instruct-q4_1]\n"
        "params: {threads: 1}\n"
        "tests: [tg8]\n");
  Output r = Pipette({"reproduce", "1", "--store", Store(), "--format", "json", "--no-bandwidth"});
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.err;
  EXPECT_NE(r.err.find("has changed since run 1: running the experiment as stored"),
            std::string::npos)
      << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "pipette.reproduce");
  EXPECT_EQ(j["again"], Store() + " run 2");
  EXPECT_TRUE(j["missing"].empty()) << j["missing"];
  int quality = 0, speed = 0;
  for (const json& f : j["figures"]) {
    if (f["check"] == "bit-identical") {
      ++quality;
      EXPECT_TRUE(f["reproduced"].is_boolean() && f["reproduced"].get<bool>()) << f;
      EXPECT_EQ(f["original"], f["now"]) << f;
      continue;
    }
    if (f["check"] == "median within noise") ++speed;
    // A speed or memory figure that missed says by how much; one measured once a cell (a load
    // time) cannot be judged either way.
    if (f["reproduced"].is_null()) {
      EXPECT_NE(f["why"].get<std::string>().find("fewer than 3"), std::string::npos) << f;
    } else if (!f["reproduced"].get<bool>()) {
      EXPECT_NE(f["why"].get<std::string>().find("past"), std::string::npos) << f;
    }
  }
  EXPECT_GE(quality, 3) << r.out;  // ppl, tok_per_kchar, mc acc ...
  EXPECT_GE(speed, 1) << r.out;
  EXPECT_EQ(r.code == 0, j["reproduced"].get<bool>());
  // The stored text was written beside the experiment and removed afterwards.
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find(".reproduce-"), std::string::npos)
        << entry.path();
  }
}

// The original run's cell measured while another Pipette measured (its conditions say so, as the
// runner records it): the report marks its rows, and reproduce lists the count among the
// environment's differences.
TEST_F(ReproduceE2E, CellsMeasuredUnderAWarningAreMarkedAndAnEnvironmentDifference) {
  {
    auto store = pipette::store::Store::Open(Store());
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto cells = (*store)->Cells(1);
    ASSERT_TRUE(cells.ok() && !cells->empty());
    pipette::store::CellRecord cell = (*cells)[0];
    cell.conditions["other_pipette"] = json::array({{{"pid", 4242}, {"program", "pipette"}}});
    ASSERT_TRUE((*store)->UpdateCell(cell).ok());
  }
  Output md = Pipette({"report", "--store", Store()});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(md.out.find("tg4 (untrusted)"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("untrusted: run 1 cell 1: measured while 1 other Pipette measured on the "
                        "machine (pid 4242 pipette)"),
            std::string::npos)
      << md.out;
  Output js = Pipette({"report", "--store", Store(), "--format", "json"});
  ASSERT_EQ(js.code, 0) << js.err;
  const json report = json::parse(js.out);
  for (const json& r : report["results"]) {
    EXPECT_EQ(r["untrusted"],
              "measured while 1 other Pipette measured on the machine (pid 4242 "
              "pipette)")
        << r;
  }
  Output r = Pipette({"reproduce", "1", "--store", Store(), "--format", "json", "--no-bandwidth"});
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.err;
  bool listed = false;
  const json verdict = json::parse(r.out);
  for (const json& d : verdict["environment"]) {
    if (d["what"] != "cells measured while another Pipette measured") continue;
    listed = true;
    EXPECT_EQ(d["original"], "1");
    EXPECT_EQ(d["now"], "0");
  }
  EXPECT_TRUE(listed) << r.out;
}

TEST_F(ReproduceE2E, BadInputExitsTwo) {
  Output none = Pipette({"reproduce", "9", "--store", Store()});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("no run 9"), std::string::npos) << none.err;
  Output store = Pipette({"reproduce", "1", "--store", (dir_ / "none.db").string()});
  EXPECT_EQ(store.code, 2);
  EXPECT_NE(store.err.find("no such store"), std::string::npos) << store.err;
  Output format = Pipette({"reproduce", "1", "--store", Store(), "--format", "html"});
  EXPECT_EQ(format.code, 2);
  EXPECT_NE(format.err.find("--format html: reproduce writes md, json, csv or jsonl"),
            std::string::npos)
      << format.err;
}

}  // namespace
}  // namespace pipette_e2e
