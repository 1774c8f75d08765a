#include "pipette/config/experiment.h"

#include <gtest/gtest.h>

#include <fstream>

#include "pipette/config/experiment_testing.h"

namespace pipette::config {
namespace {

TEST_F(ExperimentTest, AFileIsReadParsedResolvedAndChecked) {
  const std::string text =
      "models: [smollm2-135m-instruct-q4_1]\nparams: {threads: [1, 2]}\ntests: [pp16]\n";
  std::ofstream(File()) << text;
  auto ex = LoadExperiment(File(), registry_, opts_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_EQ(ex->source_text, text);
  EXPECT_EQ(ex->path, File());
  EXPECT_EQ(ex->Hash(), Parse(text)->Hash());
  EXPECT_EQ(ex->Hash().size(), 64u);
  // Resolved: every value that defines the measurement, defaults applied and files found.
  const nlohmann::json r = ex->Resolved();
  EXPECT_EQ(r["seed"], 42);
  EXPECT_EQ(r["repetitions"], 5);
  EXPECT_EQ(r["name"], "ex");
  EXPECT_EQ(r["params"]["threads"], (nlohmann::json{"1", "2"}));
  EXPECT_EQ(r["params"]["n_ctx"], nlohmann::json::array({"0"}));
  EXPECT_EQ(r["models"][0]["path"], ex->models[0].path);
  EXPECT_EQ(r["machine"]["quantize_threads"], ex->quantize_threads);
  // No devices: written, none in the resolved form: runs stored before devices resume.
  EXPECT_FALSE(r.contains("devices"));
  ASSERT_EQ(ex->devices.size(), 1u);
  EXPECT_TRUE(ex->devices[0].IsLocal());
  std::ofstream(File()) << text << "devices: [local, {name: b, ssh: {host: h}}]\n";
  auto two = LoadExperiment(File(), registry_, opts_);
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->Resolved()["devices"][1]["name"], "b");
  EXPECT_NE(two->Hash(), ex->Hash());
  // The canonical form has only what the file writes.
  EXPECT_FALSE(ex->Canonical().contains("seed"));
  EXPECT_FALSE(ex->Canonical()["params"].contains("n_ctx"));

  EXPECT_EQ(LoadExperiment(dir_.path().string(), registry_, opts_).error().message,
            dir_.path().string() + ": is a directory, not an experiment file");
  EXPECT_EQ(LoadExperiment(dir_ / "none.yaml", registry_, opts_).error().exit_code, 2);
}

}  // namespace
}  // namespace pipette::config
