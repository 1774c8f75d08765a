#include "pipette/metrics/row_cache.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "pipette/workload/registry.h"

namespace pipette::metrics {
namespace {

using nlohmann::json;

// The facts a row takes from its cell (CellFactsOf gives them; the cache stores only params_set).
std::shared_ptr<const CellFacts> Facts() {
  auto f = std::make_shared<CellFacts>();
  f->run_id = 7;
  f->cell_id = 70;
  f->cell_index = 3;
  f->cell_status = "ok";
  f->model = "smol:Q4_K_M";
  f->model_sha256 = "b179c952";
  f->model_file_size = 98362432;
  f->n_params = 134515008;
  f->quant = "Q4_K_M";
  f->quant_origin = "re-quantized from Q4_1";
  f->base_model = "smol";
  f->family = "SmolLM2 135M Instruct";
  f->provenance = {{"type", "Q4_K_M"}, {"requantized", true}};
  f->runtime = "llama.cpp";
  f->runtime_version = "0.3.36";
  f->runtime_build = {{"llama_cpp_commit", "0c1e570"}};
  f->device = "Test CPU";
  f->device_id = "fp01";
  f->emulated = true;
  f->params = {{"threads", 2}, {"n_batch", 512}, {"flash_attn", "off"}};
  f->params_set = {{"threads", 2}};
  f->untrusted = "measured while 1 other Pipette measured on the machine (pid 7)";
  return f;
}

// A row with every field set, none to its default; the figures include what JSON has no number
// for (NaN, infinities, -0).
ResultRow EveryFieldSet() {
  ResultRow r;
  r.cell = Facts();
  r.test = "gen";
  r.metric = "task_acc";
  r.unit = "fraction";
  r.summary = {5,         0.5,    -0.0, std::numeric_limits<double>::infinity(),
               0.1 + 0.2, 1e-300, 0.07, true};
  r.samples = {1.0 / 3.0, std::nan(""), -std::numeric_limits<double>::infinity(), -0.0, 6.02e23};
  r.value = 0.1 + 0.2;
  r.std_error = 0.0123456789012345678;
  r.dataset = "datasets/gen/smoke.jsonl";
  r.dataset_sha256 = "d00d";
  r.na_reason = "not really n/a";
  r.subset = "en/reasoning";
  r.ci_low = 0.25;
  r.ci_high = std::numeric_limits<double>::quiet_NaN();
  r.chat_template = {{"sha256", "abc"}, {"enable_thinking", false}};
  return r;
}

void ExpectSameBits(double a, double b, const char* what) {
  EXPECT_EQ(std::bit_cast<uint64_t>(a), std::bit_cast<uint64_t>(b))
      << what << ": " << a << " " << b;
}

void ExpectSameOpt(const std::optional<double>& a, const std::optional<double>& b,
                   const char* what) {
  ASSERT_EQ(a.has_value(), b.has_value()) << what;
  if (a) ExpectSameBits(*a, *b, what);
}

void ExpectSameFacts(const CellFacts& a, const CellFacts& b) {
  EXPECT_EQ(a.run_id, b.run_id);
  EXPECT_EQ(a.cell_id, b.cell_id);
  EXPECT_EQ(a.cell_index, b.cell_index);
  EXPECT_EQ(a.cell_status, b.cell_status);
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.model_sha256, b.model_sha256);
  EXPECT_EQ(a.model_file_size, b.model_file_size);
  EXPECT_EQ(a.n_params, b.n_params);
  EXPECT_EQ(a.quant, b.quant);
  EXPECT_EQ(a.quant_origin, b.quant_origin);
  EXPECT_EQ(a.base_model, b.base_model);
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.provenance, b.provenance);
  EXPECT_EQ(a.runtime, b.runtime);
  EXPECT_EQ(a.runtime_version, b.runtime_version);
  EXPECT_EQ(a.runtime_build, b.runtime_build);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.device_id, b.device_id);
  EXPECT_EQ(a.emulated, b.emulated);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.params_set, b.params_set);
  EXPECT_EQ(a.untrusted, b.untrusted);
}

void ExpectSameRow(const ResultRow& a, const ResultRow& b) {
  ExpectSameFacts(*a.cell, *b.cell);
  EXPECT_EQ(a.test, b.test);
  EXPECT_EQ(a.metric, b.metric);
  EXPECT_EQ(a.unit, b.unit);
  EXPECT_EQ(a.summary.n, b.summary.n);
  ExpectSameBits(a.summary.median, b.summary.median, "median");
  ExpectSameBits(a.summary.min, b.summary.min, "min");
  ExpectSameBits(a.summary.max, b.summary.max, "max");
  ExpectSameBits(a.summary.mean, b.summary.mean, "mean");
  ExpectSameBits(a.summary.stddev, b.summary.stddev, "stddev");
  ExpectSameBits(a.summary.cv, b.summary.cv, "cv");
  EXPECT_EQ(a.summary.noisy, b.summary.noisy);
  ASSERT_EQ(a.samples.size(), b.samples.size());
  for (size_t i = 0; i < a.samples.size(); ++i)
    ExpectSameBits(a.samples[i], b.samples[i], "sample");
  ExpectSameBits(a.value, b.value, "value");
  ExpectSameOpt(a.std_error, b.std_error, "std_error");
  EXPECT_EQ(a.dataset, b.dataset);
  EXPECT_EQ(a.dataset_sha256, b.dataset_sha256);
  EXPECT_EQ(a.na_reason, b.na_reason);
  EXPECT_EQ(a.subset, b.subset);
  ExpectSameOpt(a.ci_low, b.ci_low, "ci_low");
  ExpectSameOpt(a.ci_high, b.ci_high, "ci_high");
  EXPECT_EQ(a.chat_template, b.chat_template);
}

// Every field of ResultRow comes back, bit for bit: the figures from the cache, the facts from
// the cell. A field added to ResultRow changes its size and fails here: store it in
// row_cache.cc's EncodeRow/DecodeRow (or, a fact of the cell, in CellFacts), compare it in
// ExpectSameRow, set it in EveryFieldSet, then write the new size here. A field added to
// CellFacts: set it in CellFactsOf and Facts, compare it in ExpectSameFacts, write its size.
TEST(RowCache, EveryFieldOfAResultRowRoundTrips) {
  EXPECT_EQ(sizeof(ResultRow), 400u) << "ResultRow changed: see the comment above";
  EXPECT_EQ(sizeof(CellFacts), 496u) << "CellFacts changed: see the comment above";
  const ResultRow row = EveryFieldSet();
  ResultRow other;
  other.cell = Facts();
  other.test = "pp64";
  other.metric = "throughput";
  const std::string text = EncodeCellRows({row, other});
  auto back = DecodeCellRows(text, Facts());
  ASSERT_TRUE(back.has_value()) << text;
  ASSERT_EQ(back->size(), 2u);
  ExpectSameRow((*back)[0], row);
  ExpectSameRow((*back)[1], other);
  EXPECT_EQ((*back)[0].cell, (*back)[1].cell);  // one cell's rows share its facts
  // None of the cell's facts is in the text: the report attaches them once per cell.
  for (const std::string fact :
       {"smol", "b179c952", "llama.cpp", "0c1e570", "Test CPU", "fp01", "n_batch", "requantized"}) {
    EXPECT_EQ(text.find(fact), std::string::npos) << fact << " in " << text;
  }
  EXPECT_NE(text.find("params_set"), std::string::npos);  // from a sample, not the cell
}

TEST(RowCache, NoRowsIsAnEmptyListAndAnythingElseIsUnreadable) {
  auto none = DecodeCellRows(EncodeCellRows({}), Facts());
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
  const std::string good = EncodeCellRows({EveryFieldSet()});
  for (const std::string& bad :
       {std::string("not json"), std::string("[]"), std::string("{}"),
        std::string(R"({"params_set":{},"rows":[["pp64"]]})"),
        std::string(R"({"params_set":{},"rows":[[1,2,3,4,5,6,7,8,9,10,11,12,13,14]]})"),
        good.substr(0, good.size() / 2)}) {
    EXPECT_FALSE(DecodeCellRows(bad, Facts()).has_value()) << bad;
  }
  // A sample count past any size, or below 0, is unreadable, never converted.
  for (const nlohmann::json& n : {nlohmann::json(3.54526e+29), nlohmann::json(-1)}) {
    nlohmann::json doc = nlohmann::json::parse(good);
    doc["rows"][0][3][0] = n;
    EXPECT_FALSE(DecodeCellRows(doc.dump(), Facts()).has_value()) << n.dump();
  }
}

TEST(RowCache, CellsReadingAnotherCellOrWithItemsAreNotCached) {
  CellSamples speed;
  speed.samples = {{1, 1, "pp64", 0, false, {{"n_tokens", 64}}},
                   {2, 1, "gen_dataset", 0, false, {{"path", "x"}}}};
  EXPECT_FALSE(ReadsOtherCells(speed.samples, workload::Derivers()));
  EXPECT_TRUE(Cacheable(speed, workload::Derivers()));
  CellSamples kld = speed;
  kld.samples.push_back({3, 1, "kld", 0, false, json::object()});
  EXPECT_TRUE(ReadsOtherCells(kld.samples, workload::Derivers()));
  EXPECT_FALSE(Cacheable(kld, workload::Derivers()));
  CellSamples divergence = speed;
  divergence.samples[1].raw["divergence_reference_cell_id"] = 4;
  EXPECT_TRUE(ReadsOtherCells(divergence.samples, workload::Derivers()));
  EXPECT_FALSE(Cacheable(divergence, workload::Derivers()));
  CellSamples mc = speed;
  mc.samples.push_back({3, 1, "mc", 0, false, json::object()});
  EXPECT_FALSE(ReadsOtherCells(mc.samples, workload::Derivers()));
  EXPECT_FALSE(Cacheable(mc, workload::Derivers()));
}

// CellFactsOf gives what DeriveRows puts on every row of the cell, from the cell alone, and the
// rows of one cell share them.
TEST(RowCache, CellFactsAreThoseOfTheCellsDerivedRows) {
  store::RunRecord run;
  run.id = 7;
  store::EnvironmentRecord env{1, "fp01", {{"cpu_model", "Test CPU"}}};
  CellSamples c;
  c.cell.id = 70;
  c.cell.run_id = 7;
  c.cell.index = 3;
  c.cell.status = "ok";
  c.cell.model_name = "smol";
  c.cell.model_info = {{"file", {{"quant", "Q4_1"}, {"n_params", 5}, {"general_name", "S"}}},
                       {"provenance", {{"label", "Q4_K_M"}, {"base", {{"name", "base"}}}}}};
  c.cell.runtime = "llama.cpp";
  c.cell.params = {{"threads", 2}, {"n_batch", 64}};
  c.samples = {{1, 70, "context", 0, false, {{"params_set", {{"threads", 2}}}}},
               {2, 70, "pp64", 0, false, {{"n_tokens", 64}, {"t_start_ns", 0}, {"t_end_ns", 9}}}};
  for (int64_t file_size : {int64_t{0}, int64_t{1234}}) {
    c.cell.model_file_size = file_size;
    const std::vector<ResultRow> live = DeriveRows(run, env, {c}, workload::Derivers());
    ASSERT_EQ(live.size(), file_size > 0 ? 2u : 1u);
    EXPECT_EQ(live.front().cell, live.back().cell);
    const CellFacts facts = CellFactsOf(run, env, c.cell, json{{"threads", 2}});
    ExpectSameFacts(facts, *live.front().cell);
    EXPECT_EQ(facts.quant, "Q4_K_M");
    EXPECT_EQ(facts.base_model, "base");
    EXPECT_EQ(facts.family, "S");
    EXPECT_EQ(facts.model_file_size, file_size);
  }
}

}  // namespace
}  // namespace pipette::metrics
