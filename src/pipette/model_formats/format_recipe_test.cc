// The recipe of docs/architecture.md "Adding a model format": a made-up format, "toy" (a test
// fixture, in this test's registry only: a file *.toy holding a JSON object of its facts), is
// recognised and read when an experiment is resolved, paired by the plan with the runtime that
// lists it, measured at its cell (its cache key and facts stored) when the runner runs it against
// the fake worker, and its size derived as the cell's model/file_size figure, with nothing
// outside this file written for it.
#include <gtest/gtest.h>

#include <fstream>

#include "pipette/compare/compare.h"
#include "pipette/config/experiment_testing.h"
#include "pipette/metrics/derive.h"
#include "pipette/model_formats/formats.h"
#include "pipette/plan/plan.h"
#include "pipette/report/document.h"
#include "pipette/run/runner.h"
#include "pipette/run/runner_testing.h"
#include "pipette/runtime/registry.h"
#include "pipette/testing/fake_device.h"
#include "pipette/testing/fake_worker.h"
#include "pipette/util/files.h"
#include "pipette/util/sha256.h"
#include "pipette/workload/registry.h"

namespace pipette::model_formats {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The made-up format: its whole definition.
model::ModelFormat Toy() {
  auto facts_of = [](const std::string& path) -> Result<json> {
    auto text = ReadFileToString(path);
    if (!text) return text.error();
    json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return InputError(path + ": not a toy model (a JSON object)");
    return j;
  };
  return {.name = "toy",
          .about = "a .toy file",
          .extensions = {".toy"},
          .recognises = [](const std::string& p) { return fs::path(p).extension() == ".toy"; },
          .read = [facts_of](const std::string& p) -> Result<model::ModelFileFacts> {
            auto j = facts_of(p);
            if (!j) return j.error();
            return model::ModelFileFacts{p, fs::path(p).stem().string(),
                                         j->value("n_ctx_train", int64_t{0}),
                                         j->value("quant", "")};
          },
          .measure = [facts_of](const std::string& p) -> Result<model::ModelFacts> {
            auto j = facts_of(p);
            if (!j) return j.error();
            auto sha = Sha256File(p);
            if (!sha) return sha.error();
            return model::ModelFacts{
                *sha, static_cast<int64_t>(fs::file_size(p)), {{"quant", j->value("quant", "")}}};
          }};
}

// The shipped formats and the made-up one: this test's registry.
const model::ModelFormats& Formats() {
  static const model::ModelFormats formats({Gguf(), Onnx(), Mnn(), Toy()});
  return formats;
}

// The shipped runtimes, llama.cpp's loading toy files too (a runtime lists what it loads).
const runtime::RuntimeRegistry& Runtimes() {
  static const runtime::RuntimeRegistry runtimes = [] {
    std::vector<runtime::Runtime> all = runtime::Registry().runtimes();
    for (runtime::Runtime& r : all) {
      if (r.name == "llama.cpp") r.model_formats.push_back("toy");
    }
    return runtime::RuntimeRegistry(std::move(all));
  }();
  return runtimes;
}

class ModelFormatRecipe : public config::ExperimentTest {
 protected:
  void SetUp() override {
    ExperimentTest::SetUp();
    std::ofstream(dir_ / "m.toy") << R"({"n_ctx_train": 512, "quant": "T4"})";
    opts_.formats = &Formats();
    opts_.runtimes = &Runtimes();
  }
  const std::string text_ = "models: [m.toy]\nruntimes: [llama.cpp]\ntests: [tg4]\n";
};

TEST_F(ModelFormatRecipe, AMadeUpFormatIsRecognisedAndReadWhenResolved) {
  auto ex = Parse(text_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const config::ModelSpec& m = ex->models.at(0);
  EXPECT_EQ(m.format, "toy");
  EXPECT_EQ(m.name, "m");
  EXPECT_EQ(m.path, dir_ / "m.toy");
  EXPECT_EQ(m.quant, "T4");
  EXPECT_EQ(m.n_ctx_train, 512);
  // A reference ending .toy names a path, and the messages list the format.
  EXPECT_EQ(ErrorOf("models: [no.toy]\nruntimes: [llama.cpp]\ntests: [tg4]\n")
                .rfind("ex.yaml:1:10: model file not found: 'no.toy'", 0),
            0u);
  EXPECT_NE(ErrorOf("models: [nosuch]\ntests: [tg4]\n").find("a .toy file"), std::string::npos);
  // A runtime that does not list it does not load it.
  opts_.runtimes = &runtime::Registry();
  EXPECT_EQ(ErrorOf(text_),
            "ex.yaml:1: model 'm' (format toy) is loaded by no runtime of this experiment "
            "(llama.cpp)");
  // Without it in the registry the file is no model.
  opts_.formats = &Registry();
  EXPECT_EQ(ErrorOf(text_).rfind("ex.yaml:1:10: unknown model 'm.toy'", 0), 0u);
}

TEST_F(ModelFormatRecipe, AMadeUpFormatIsPairedMeasuredStoredAndDerived) {
  auto ex = Parse(text_);
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  auto cells = plan::Expand(*ex, Runtimes(), workload::PlanNeeds());
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 1u);

  run::FakeWorkerRun run("format-recipe", registry_);
  auto data =
      run.Run(*ex, *cells, registry_, Runtimes(), workload::MakeWorkloads, workload::Derivers(),
              [](run::RunnerDeps& deps) {
                deps.model_facts = [](const std::string& p) { return Formats().Measure(p); };
              });
  ASSERT_TRUE(data.ok()) << data.error().message;

  // Its cache key and facts are the cell's.
  ASSERT_EQ(data->cells.size(), 1u);
  const store::CellRecord& cell = data->cells.at(0);
  EXPECT_EQ(cell.model_sha256, *Sha256File(dir_ / "m.toy"));
  EXPECT_EQ(cell.model_info["file"].value("format", ""), "toy");
  EXPECT_EQ(cell.model_info["file"].value("quant", ""), "T4");
  const auto size = static_cast<int64_t>(fs::file_size(dir_ / "m.toy"));
  EXPECT_EQ(cell.model_file_size, size);

  // Derived: the decode rate, and the file's size as the model's.
  bool rate = false, file_size = false;
  for (const metrics::ResultRow& r : data->rows) {
    rate = rate || (r.test == "tg4" && r.metric == "throughput" && r.value > 0);
    if (r.test == "model" && r.metric == "file_size") {
      file_size = true;
      EXPECT_EQ(r.value, double(size));
    }
  }
  EXPECT_TRUE(rate);
  EXPECT_TRUE(file_size);

  // Shown: the summary's line of the cell gives the quantization the format read.
  const report::Report report = report::BuildReport(*data, registry_, workload::Figures());
  ASSERT_FALSE(report.summary.rows.empty());
  bool quant = false;
  for (const report::Value& v : report.summary.rows[0].values) {
    if (const auto* s = std::get_if<std::string>(&v))
      quant = quant || s->find("T4") != std::string::npos;
  }
  EXPECT_TRUE(quant);
  // Paired by its cache key, a candidate of select, and on the page.
  bool keyed = false;
  for (const metrics::ResultRow& r : data->rows) {
    for (const auto& [name, value] : compare::PairingKey(r, workload::Figures())) {
      keyed = keyed || value == cell.model_sha256;
    }
  }
  EXPECT_TRUE(keyed);
  EXPECT_EQ(run::CandidatesOf(*data, workload::Figures()).size(), 1u);
  EXPECT_NE(run::PageOf(*data, registry_, workload::Figures()).find("T4"), std::string::npos);
}

}  // namespace
}  // namespace pipette::model_formats
