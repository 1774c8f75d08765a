#include "pipette/workload/gen/spec.h"

#include <gtest/gtest.h>

#include <fstream>

#include "pipette/config/canonical.h"
#include "pipette/workload/dataset_spec.h"
#include "pipette/workload/spec_testing.h"

namespace pipette::workload {
namespace {

const std::string kGen = kSmol + "quality:\n  gen:\n";

TEST(GenSpec, TemplateOptions) {
  auto gen = ParseWritten(kGen +
                          "    template_options: {enable_thinking: false, n: 3, x: 0.5, s: hello,"
                          " q: 'true', z: ~, t: True}\n");
  ASSERT_TRUE(gen.ok()) << gen.error().message;
  const nlohmann::json want = {{"enable_thinking", false},
                               {"n", 3},
                               {"x", 0.5},
                               {"s", "hello"},
                               {"q", "true"},
                               {"z", nullptr},
                               {"t", true}};
  EXPECT_EQ(gen->quality.Get<WrittenDataset>("gen")->template_options, want);
  EXPECT_EQ(WrittenErrorOf(kGen + "    template_option: {enable_thinking: false}\n"),
            "ex.yaml:4:5: unknown key 'template_option' in gen (did you mean "
            "'template_options'?)");
  EXPECT_EQ(WrittenErrorOf(kGen + "    template_options: [enable_thinking]\n"),
            "ex.yaml:4:23: gen.template_options takes a mapping of option names to values "
            "(e.g. {enable_thinking: false})");
  EXPECT_EQ(WrittenErrorOf(kGen + "    template_options: {a: [1, 2]}\n"),
            "ex.yaml:4:27: field 'gen.template_options.a' must be a single value (string, number, "
            "boolean or null)");
  EXPECT_EQ(WrittenErrorOf(kGen + "    template_options: {a: 1, a: 2}\n"),
            "ex.yaml:4:30: duplicate key 'a' in quality.gen.template_options (first at line 4)");
}

TEST(GenSpec, TemplateOptionsAreCanonicalOnlyWhenGiven) {
  auto plain = ParseWritten(kGen + "    limit: 2\n");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(config::CanonicalForm(*plain)["quality"]["gen"].contains("template_options"));
  auto with = ParseWritten(kGen + "    limit: 2\n    template_options: {enable_thinking: false}\n");
  ASSERT_TRUE(with.ok());
  EXPECT_EQ(config::CanonicalForm(*with)["quality"]["gen"]["template_options"],
            (nlohmann::json{{"enable_thinking", false}}));
  EXPECT_NE(config::ConfigHash(*plain), config::ConfigHash(*with));
}

using GenSpecResolve = SpecTest;

TEST_F(GenSpecResolve, TheShippedDatasetByDefault) {
  auto ex = Parse(kGen + "    template_options: {enable_thinking: false}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const GenSpec* gen = GenSpecOf(*ex);
  ASSERT_NE(gen, nullptr);
  EXPECT_EQ(gen->dataset, opts_.datasets_dir + "/gen/pipette-gen-v1.jsonl");
  EXPECT_GT(gen->n_items, 0);
  EXPECT_GT(gen->max_need, 0);
  EXPECT_EQ(ex->Resolved()["quality"]["gen"]["template_options"],
            (nlohmann::json{{"enable_thinking", false}}));
}

TEST_F(GenSpecResolve, ADatasetWithoutItemsIsRefused) {
  std::ofstream(dir_ / "none.jsonl") << "\n\n";
  EXPECT_EQ(ErrorOf(kSmol + "quality:\n  gen: {dataset: none.jsonl}\n"),
            "none.jsonl: no items (the file is empty or has only blank lines)");
}

}  // namespace
}  // namespace pipette::workload
