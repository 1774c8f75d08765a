#include "pipette/metrics/derive.h"

#include <gtest/gtest.h>

#include <map>

#include "pipette/workload/registry.h"

namespace pipette::metrics {
namespace {

using nlohmann::json;

// The derivation asks only the derivers it is given (metrics/ never fetches the workloads): a
// made-up one's rows and its error row appear; without any, there are no rows.
class MadeUpDeriver : public RowDeriver {
 public:
  explicit MadeUpDeriver(bool fail) : fail_(fail) {}
  std::string Name() const override { return "madeup"; }
  Status Derive(const ResultRow& base, const CellSamples& cell, const CellsById&,
                const store::EnvironmentRecord&, std::vector<ResultRow>* rows) const override {
    if (fail_) return InputError("a stored sample of another shape");
    ResultRow r = base;
    r.test = "madeup";
    r.metric = "samples";
    r.value = double(cell.samples.size());
    rows->push_back(r);
    return {};
  }

 private:
  bool fail_;
};

TEST(Derive, RowsComeFromTheDeriversGiven) {
  CellSamples c;
  c.cell.id = 3;
  c.cell.status = "ok";
  c.cell.model_info = json::object();
  c.samples = {{1, 3, "pp8", 0, false, {{"n_tokens", 8}, {"t_start_ns", 0}, {"t_end_ns", 8000}}}};
  auto tests = [&](const RowDerivers& derivers) {
    std::map<std::string, std::string> out;  // test -> metric, or the n/a reason
    for (const ResultRow& r : DeriveRows({}, {1, "fp", json::object()}, {c}, derivers)) {
      out[r.test] = r.na_reason.empty() ? r.metric : r.na_reason;
    }
    return out;
  };
  // No deriver, no rows: even the speed tests' are the speed workload's.
  EXPECT_TRUE(tests({}).empty());
  EXPECT_EQ(tests(workload::Derivers()).count("pp8"), 1u);
  const MadeUpDeriver ok(false), broken(true);
  EXPECT_EQ(tests({&ok})["madeup"], "samples");
  EXPECT_EQ(tests({&ok}).count("pp8"), 0u);
  EXPECT_EQ(tests({&broken})["madeup"], "a stored sample of another shape");
}

// The time to write 1000 characters: each tg repetition's ms/token times the tokens the model
// makes of 1000 characters of the ppl corpus (here 250: 40 tokens of 160 characters).
TEST(Derive, MsPerKcharIsMsPerTokenTimesTheCorpusDensity) {
  CellSamples c;
  c.cell.id = 10;
  c.cell.status = "ok";
  c.cell.model_info = json::object();
  auto tg = [](int64_t ns) {
    json ends = json::array();
    for (int i = 1; i <= 10; ++i) ends.push_back(ns * i / 10);
    return json{{"n_tokens", 10}, {"t_start_ns", 0}, {"t_end_ns", ns}, {"token_end_ns", ends}};
  };
  c.samples = {{1, 10, "tg10", 0, false, tg(100'000'000)},  // 100 t/s: 10 ms/token
               {2, 10, "tg10", 1, false, tg(200'000'000)},  // 50 t/s: 20 ms/token
               {3, 10, "ppl_corpus", 0, false, {{"n_tokens", 40}, {"n_chars", 160}}},
               {4, 10, "ppl", 0, false, {{"logprob", {-1.0, -1.0}}}}};
  const auto rows = DeriveRows({}, {1, "fp", json::object()}, {c}, workload::Derivers());
  const ResultRow* k = nullptr;
  const ResultRow* ms = nullptr;
  for (const auto& r : rows) {
    if (r.test == "tg10" && r.metric == "ms_per_kchar") k = &r;
    if (r.test == "tg10" && r.metric == "ms_per_token") ms = &r;
  }
  ASSERT_NE(ms, nullptr);
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->samples.size(), 2u);
  EXPECT_DOUBLE_EQ(k->samples[0], ms->samples[0] * 250);
  EXPECT_DOUBLE_EQ(k->samples[1], ms->samples[1] * 250);
  EXPECT_EQ(k->unit, "ms");
  // Without ppl in the cell there is no such figure.
  c.samples.resize(2);
  for (const auto& r : DeriveRows({}, {1, "fp", json::object()}, {c}, workload::Derivers())) {
    EXPECT_NE(r.metric, "ms_per_kchar");
  }
}

// e2e@P+N: the whole request, its first token, and the decoding after it.
// A store's raw column is outside data: values of another type read as absent, never throw (found
// by fuzz/store_json_fuzz.cc: `reset` of another shape threw a JSON type_error).
TEST(Derive, RawValuesOfAnotherTypeReadAsAbsent) {
  CellSamples c;
  c.cell.id = 1;
  c.cell.status = "ok";
  c.cell.model_info = {{"file", {{"n_params", "many"}, {"quant", 4}}},
                       {"provenance", {{"label", 1}, {"base", "x"}, {"requantized", "yes"}}}};
  const json ends = {1, "two", 3};
  c.samples = {
      {1, 1, "memory", 0, false, {{"reset", "yes"}, {"hwm", 1e300}}},
      {2, 1, "load", 0, false, {{"load_measured", "no"}, {"fallback", 3}}},
      {3, 1, "tg4", 0, false, {{"t_start_ns", 0}, {"token_end_ns", ends}}},
      {4, 1, "e2e@8+4", 0, false, {{"t_start_ns", 0}, {"token_end_ns", {"a", 2}}}},
      {5,
       1,
       "tg8",
       0,
       false,
       {{"streams",
         {{{"tokens", 3},
           {"server", {{"prompt_ms", "1"}, {"predicted_ms", 2}}},
           {"token_ns", {1, {{"x", 1}}}},
           {"t_sent_ns", 0},
           {"t_end_ns", 5},
           {"t_first_ns", 1}}}}}},
      {6, 1, "sustained20", 0, false, {{"sensors_na", 5}}},
      {7, 1, "pp16", 0, false, json::array({1, 2})},
      // fuzz/regressions/store_json: a runtime_perf whose counts are not numbers
      {8, 1, "tg4", 1, false, {{"runtime_perf", {{"t_eval_ms", "1"}, {"n_eval", {4}}}}}},
      {9, 1, "context", 0, false, {{"swa_full", "yes"}, {"flash_attn_resolved", 1}}},
  };
  std::vector<ResultRow> rows;
  ASSERT_NO_THROW(rows = DeriveRows({}, {1, "fp", json::object()}, {c}, workload::Derivers()));
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front().cell->n_params, 0);
  EXPECT_EQ(rows.front().cell->quant, "?");
  for (const auto& r : rows) {
    EXPECT_FALSE(r.test == "memory" && r.metric == "peak_rss" && r.value);
    EXPECT_FALSE(r.metric == "runtime_ms_per_token" && r.value);
  }
}

TEST(Derive, E2eIsTheWholeRequestFromThePromptsStart) {
  store::RunRecord run;
  run.id = 1;
  store::EnvironmentRecord env{1, "fp", {{"cpu_model", "Test CPU"}}};
  CellSamples c;
  c.cell.id = 10;
  c.cell.status = "ok";
  c.cell.model_name = "m";
  c.cell.runtime = "llama.cpp";
  const json raw = {{"n_prompt", 4},
                    {"n_gen", 3},
                    {"t_start_ns", 1'000'000},
                    {"token_end_ns", {41'000'000, 51'000'000, 61'000'000}},
                    {"tokens", {1, 2, 3}}};
  c.samples = {{1, 10, "e2e@4+3", 0, false, raw}};
  auto rows = DeriveRows(run, env, {c}, workload::Derivers());
  auto find = [&](const std::string& metric) -> const ResultRow* {
    for (const auto& r : rows) {
      if (r.test == "e2e@4+3" && r.metric == metric) return &r;
    }
    return nullptr;
  };
  ASSERT_NE(find("e2e"), nullptr);
  EXPECT_DOUBLE_EQ(find("e2e")->summary.median, 60.0);
  EXPECT_EQ(find("e2e")->unit, "ms");
  EXPECT_TRUE(workload::Figures().IsHeadline(*find("e2e")));
  EXPECT_DOUBLE_EQ(find("first_token")->summary.median, 40.0);
  EXPECT_FALSE(workload::Figures().IsHeadline(*find("first_token")));
  EXPECT_DOUBLE_EQ(find("decode_throughput")->summary.median, 100.0);  // 2 tokens in 20 ms
}

TEST(Derive, LoadMsIsTheReplysSpan) {
  EXPECT_DOUBLE_EQ(*LoadMs({{"t_start_ns", 0}, {"t_end_ns", 123'000'000}}), 123.0);
}

TEST(Derive, RowsSummariseRecordedRepetitionsOnly) {
  store::RunRecord run;
  run.id = 3;
  store::EnvironmentRecord env{1, "fp", {{"cpu_model", "Test CPU"}}};
  CellSamples c;
  c.cell.id = 10;
  c.cell.index = 0;
  c.cell.status = "ok";
  c.cell.model_name = "m";
  c.cell.model_file_size = 1000;
  c.cell.model_info = {{"file", {{"quant", "Q4_1"}, {"n_params", 135}}}};
  c.cell.runtime = "llama.cpp";
  c.cell.params = {{"threads", 2}};
  c.cell.load_cell_id = 10;
  auto pp = [](int64_t ns) { return json{{"n_tokens", 100}, {"t_start_ns", 0}, {"t_end_ns", ns}}; };
  c.samples = {
      {1,
       10,
       "load",
       0,
       false,
       {{"t_start_ns", 0}, {"t_end_ns", 5'000'000}, {"rss_before", 100}, {"rss_after", 600}}},
      {2, 10, "pp100", 0, true, pp(1'000'000'000)},  // warm-up: 100 t/s, excluded
      {3, 10, "pp100", 1, false, pp(100'000'000)},   // 1000 t/s
      {4, 10, "pp100", 2, false, pp(50'000'000)},    // 2000 t/s
      {5, 10, "memory", 0, false, {{"hwm", 5000}, {"rss", 4000}, {"reset", {{"supported", true}}}}},
      {6, 10, "context", 0, false, {{"t_start_ns", 0}, {"t_end_ns", 2'000'000}}}};
  auto rows = DeriveRows(run, env, {c}, workload::Derivers());
  auto find = [&](const std::string& test, const std::string& metric) -> const ResultRow* {
    for (const auto& r : rows) {
      if (r.test == test && r.metric == metric) return &r;
    }
    return nullptr;
  };
  const ResultRow* tp = find("pp100", "throughput");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->summary.n, 2u);
  EXPECT_DOUBLE_EQ(tp->summary.median, 1500);
  EXPECT_DOUBLE_EQ(tp->summary.min, 1000);
  EXPECT_EQ(tp->samples, (std::vector<double>{1000, 2000}));
  EXPECT_TRUE(tp->summary.noisy);
  EXPECT_EQ(tp->cell->quant, "Q4_1");
  EXPECT_EQ(tp->cell->n_params, 135);
  EXPECT_EQ(tp->cell->device, "Test CPU");
  EXPECT_EQ(tp->cell->run_id, 3);
  EXPECT_TRUE(workload::Figures().IsHeadline(*tp));
  ASSERT_NE(find("memory", "peak_rss"), nullptr);
  EXPECT_DOUBLE_EQ(find("memory", "peak_rss")->summary.median, 5000);
  EXPECT_DOUBLE_EQ(find("load", "time")->summary.median, 7);  // model 5 ms + context 2 ms
  EXPECT_DOUBLE_EQ(find("load", "model_load")->summary.median, 5);
  EXPECT_DOUBLE_EQ(find("load", "context_init")->summary.median, 2);
  EXPECT_DOUBLE_EQ(find("load", "rss_delta")->summary.median, 500);
  EXPECT_DOUBLE_EQ(find("model", "file_size")->summary.median, 1000);
  EXPECT_FALSE(workload::Figures().IsHeadline(*find("load", "time")));
  EXPECT_EQ(find("load", "inserted_casts"), nullptr);  // a runtime that reports no fall-back

  // A runtime's fall-back report (ONNX Runtime's): its counts become rows of the load.
  c.samples[0].raw["fallback"] = {{"nodes_on_other_providers", 3},
                                  {"other_provider_ops", {{"MatMul", 2}, {"Add", 1}}},
                                  {"inserted_casts", 483},
                                  {"inserted_cast_ops", {{"MatMul", 60}, {"Add", 423}}}};
  rows = DeriveRows(run, env, {c}, workload::Derivers());
  ASSERT_NE(find("load", "inserted_casts"), nullptr);
  EXPECT_TRUE(find("load", "inserted_casts")->subset.empty());  // the first: the total
  EXPECT_DOUBLE_EQ(find("load", "inserted_casts")->summary.median, 483);
  EXPECT_EQ(find("load", "inserted_casts")->unit, "nodes");
  EXPECT_DOUBLE_EQ(find("load", "nodes_on_other_providers")->summary.median, 3);
  // ... and by op type, each a row of that subset.
  std::map<std::string, double> casts, elsewhere;
  for (const ResultRow& r : rows) {
    if (r.test != "load" || r.subset.empty()) continue;
    (r.metric == "inserted_casts" ? casts : elsewhere)[r.subset] = r.value;
  }
  EXPECT_EQ(casts, (std::map<std::string, double>{{"Add", 423}, {"MatMul", 60}}));
  EXPECT_EQ(elsewhere, (std::map<std::string, double>{{"Add", 1}, {"MatMul", 2}}));
  c.samples[0].raw.erase("fallback");
  rows = DeriveRows(run, env, {c}, workload::Derivers());

  // Swapped pages count: the largest VmRSS + VmSwap the worker sampled, where above VmHWM.
  c.samples[4].raw["swap"] = 3000;
  c.samples[4].raw["footprint_peak"] = 6500;
  rows = DeriveRows(run, env, {c}, workload::Derivers());
  EXPECT_DOUBLE_EQ(find("memory", "peak_rss")->summary.median, 6500);
  c.samples[4].raw["footprint_peak"] = 4500;  // below VmHWM: VmHWM
  rows = DeriveRows(run, env, {c}, workload::Derivers());
  EXPECT_DOUBLE_EQ(find("memory", "peak_rss")->summary.median, 5000);

  // Without a peak reset, VmHWM is not the cell's own: n/a, with the reason.
  c.samples[4].raw["reset"]["supported"] = false;
  rows = DeriveRows(run, env, {c}, workload::Derivers());
  const ResultRow* na = find("memory", "peak_rss");
  ASSERT_NE(na, nullptr);
  EXPECT_FALSE(na->na_reason.empty());
  EXPECT_EQ(na->summary.n, 0u);
}

// Energy read around a repetition: W over the seconds between the readings, J/token that power
// over the timed span (W / t/s); a device that could not tell, or a served model's streams,
// give n/a rows with the reason.
TEST(Derive, EnergyPerTokenAndPowerFromTheStoredJoules) {
  store::RunRecord run;
  store::EnvironmentRecord env{1, "fp", json::object()};
  CellSamples c;
  c.cell.id = 1;
  c.cell.status = "ok";
  auto pp = [](double joules) {
    return json{{"n_tokens", 100},
                {"t_start_ns", 0},
                {"t_end_ns", 500'000'000},
                {"energy", {{"joules", joules}, {"seconds", 0.5}, {"source", "powercap"}}}};
  };
  const json tg = {{"t_start_ns", 0},
                   {"token_end_ns", {100'000'000, 200'000'000}},
                   {"energy", {{"na", "no energy source here"}}}};
  json served = pp(1.0);
  served["streams"] = json::array();
  c.samples = {{1, 1, "pp100", 0, false, pp(2.0)},
               {2, 1, "pp100", 1, false, pp(3.0)},
               {3, 1, "tg2", 0, false, tg},
               {4, 1, "tg4", 0, false, served}};
  const auto rows = DeriveRows(run, env, {c}, workload::Derivers());
  auto find = [&](const std::string& test, const std::string& metric) -> const ResultRow* {
    for (const auto& r : rows) {
      if (r.test == test && r.metric == metric) return &r;
    }
    return nullptr;
  };
  const ResultRow* per_token = find("pp100", "energy_per_token");
  ASSERT_NE(per_token, nullptr);
  EXPECT_EQ(per_token->unit, "J/token");
  EXPECT_EQ(per_token->samples, (std::vector<double>{0.02, 0.03}));
  const ResultRow* power = find("pp100", "power");
  ASSERT_NE(power, nullptr);
  EXPECT_EQ(power->samples, (std::vector<double>{4.0, 6.0}));
  const ResultRow* none = find("tg2", "energy_per_token");
  ASSERT_NE(none, nullptr);
  EXPECT_EQ(none->na_reason, "no energy source here");
  ASSERT_NE(find("tg2", "power"), nullptr);
  EXPECT_EQ(find("tg2", "power")->na_reason, "no energy source here");
  ASSERT_NE(find("tg4", "energy_per_token"), nullptr);
  EXPECT_NE(find("tg4", "energy_per_token")->na_reason.find("a served model"), std::string::npos);
}

// A phase the runtime did not serve (an `na` sample) is one n/a row; a workload whose stored
// samples cannot be read is its own n/a row, and the other workloads' figures stay.
TEST(Derive, NotServedPhasesAndUnreadableSamplesAreNaRowsOfTheirWorkload) {
  CellSamples c;
  c.cell.id = 10;
  c.cell.status = "ok";
  c.cell.model_info = json::object();
  c.samples = {
      {1, 10, "na", 0, false, {{"phase", "gen"}, {"op", "chat"}, {"reason", "no chat here"}}},
      {2, 10, "ppl_corpus", 0, false, {{"n_tokens", 4}, {"n_chars", 16}}},
      {3, 10, "ppl", 0, false, {{"logprob", {-1.0, -1.0}}}},
      {4, 10, "mc_dataset", 0, false, json::object()},
      {5, 10, "mc", 0, false, {{"answer", "not a number"}}}};
  const auto rows = DeriveRows({}, {1, "fp", json::object()}, {c}, workload::Derivers());
  auto find = [&](const std::string& test, const std::string& metric) -> const ResultRow* {
    for (const auto& r : rows) {
      if (r.test == test && r.metric == metric) return &r;
    }
    return nullptr;
  };
  const ResultRow* gen = find("gen", "all");
  ASSERT_NE(gen, nullptr);
  EXPECT_EQ(gen->na_reason, "no chat here");
  const ResultRow* mc = find("mc", "all");
  ASSERT_NE(mc, nullptr);
  EXPECT_NE(mc->na_reason.find("stored mc data could not be read"), std::string::npos);
  ASSERT_NE(find("ppl", "ppl"), nullptr);  // ppl's samples are fine: its figure stays
  EXPECT_TRUE(find("ppl", "ppl")->na_reason.empty());
}

}  // namespace
}  // namespace pipette::metrics

namespace pipette::metrics {
namespace {

// An endpoint's tg request of two concurrent streams (docs/metrics.md "Endpoints"): figures per
// stream, the aggregate over both, the serving overhead, and the counts of failures and
// mismatches; a failed request counts and gives no figure.
TEST(Derive, EndpointStreamsGivePerStreamAndAggregateFigures) {
  store::RunRecord run;
  store::EnvironmentRecord env{1, "fp", json::object()};
  CellSamples c;
  c.cell.id = 7;
  c.cell.status = "ok";
  c.cell.runtime = "openai";
  c.cell.model_info = json::object();
  c.cell.params = json::object();
  const int64_t ms = 1'000'000;
  // Stream a: sent at 0, tokens at 100, 110, 120 ms (2 steps in 20 ms: 100 t/s), ends at 125 ms;
  // the server counted 20 + 80 ms. Stream b: tokens at 105, 125, 145 ms (50 t/s), a mismatch.
  json a = {{"t_sent_ns", 0},           {"t_end_ns", 125 * ms},
            {"t_first_ns", 100 * ms},   {"token_ns", {100 * ms, 110 * ms, 120 * ms}},
            {"tokens", {{"asked", 3}}}, {"server", {{"prompt_ms", 20.0}, {"predicted_ms", 80.0}}}};
  json b = {{"t_sent_ns", 0},
            {"t_end_ns", 150 * ms},
            {"t_first_ns", 105 * ms},
            {"token_ns", {105 * ms, 125 * ms, 145 * ms}},
            {"tokens", {{"asked", 3}, {"mismatch", "usage says 4 generated, 3 streamed"}}}};
  json failed = {{"request_failed", {{"kind", "timeout"}, {"message", "stalled"}}},
                 {"streams", {{{"error", "stalled"}, {"kind", "timeout"}}}}};
  c.samples = {{1, 7, "tg2", 0, false, {{"streams", {a, b}}}}, {2, 7, "tg2", 1, false, failed}};
  const auto rows = DeriveRows(run, env, {c}, workload::Derivers());
  auto find = [&](const std::string& metric) -> const ResultRow* {
    for (const auto& r : rows) {
      if (r.test == "tg2" && r.metric == metric) return &r;
    }
    return nullptr;
  };
  ASSERT_NE(find("throughput"), nullptr);
  EXPECT_EQ(find("throughput")->samples, (std::vector<double>{100, 50}));
  EXPECT_EQ(find("e2e")->samples, (std::vector<double>{125, 150}));
  EXPECT_EQ(find("serving_overhead")->samples, (std::vector<double>{25}));  // 125 - (20 + 80)
  // 4 steps from 100 ms to 145 ms, over both streams.
  EXPECT_NEAR(find("aggregate_throughput")->value, 4 / 0.045, 1e-9);
  EXPECT_DOUBLE_EQ(find("itl_p50")->value, 15);  // gaps 10, 10, 20, 20
  EXPECT_DOUBLE_EQ(find("streams")->value, 3);
  EXPECT_DOUBLE_EQ(find("failed_streams")->value, 1);
  EXPECT_DOUBLE_EQ(find("token_count_mismatches")->value, 1);
  EXPECT_EQ(find("ttft"), nullptr);  // tg's first token is not a ttft test
}

// A cell measured on another device than its run's takes its own environment: the device's
// name and CPU, and for an emulated one what it emulated on which host, with `emulated` set.
TEST(Derive, ACellOnAnotherDeviceIsNamedByItsOwnEnvironment) {
  store::RunRecord run;
  run.id = 1;
  const store::EnvironmentRecord here{1, "fp-here", {{"cpu_model", "Host CPU"}}};
  Environments envs;
  envs[2] = {2,
             "fp-board",
             {{"cpu_model", "Cortex-A76"}, {"device", {{"name", "board"}, {"kind", "ssh"}}}}};
  envs[3] = {3,
             "fp-arm",
             {{"cpu_model", "Host CPU"},
              {"device", {{"name", "arm"}, {"kind", "ssh"}}},
              {"emulated", {{"arch", "aarch64"}, {"emulator", "qemu-aarch64"}}}}};
  std::vector<CellSamples> cells(3);
  for (int i = 0; i < 3; ++i) {
    cells[i].cell.id = 10 + i;
    cells[i].cell.index = i;
    cells[i].cell.status = "ok";
    cells[i].cell.model_file_size = 100;
    if (i > 0) cells[i].cell.environment_id = 1 + i;
  }
  const auto rows = DeriveRows(run, here, cells, workload::Derivers(), &envs);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].cell->device, "Host CPU");
  EXPECT_FALSE(rows[0].cell->emulated);
  EXPECT_EQ(rows[1].cell->device, "board: Cortex-A76");
  EXPECT_EQ(rows[1].cell->device_id, "fp-board");
  EXPECT_FALSE(rows[1].cell->emulated);
  EXPECT_EQ(rows[2].cell->device, "arm: aarch64 emulated by qemu-aarch64 on Host CPU");
  EXPECT_TRUE(rows[2].cell->emulated);
  // Facts a failed snapshot left null never throw: the name stays.
  EXPECT_EQ(DeviceLabel({{"cpu_model", nullptr}, {"device", {{"name", "b"}}}}), "b: ?");
  EXPECT_EQ(DeviceLabel(nullptr), "local");
}

// A cell measured while another Pipette measured, or refused by the readiness gate, carries the
// warning in its facts (every report format and compare read it there); a clean one none.
TEST(CellFactsOf, ACellMeasuredUnderAWarningIsUntrusted) {
  store::RunRecord run;
  store::EnvironmentRecord env;
  store::CellRecord cell;
  cell.conditions = {{"load_avg_1", 0.1}};
  EXPECT_EQ(CellFactsOf(run, env, cell, json::object()).untrusted, "");
  cell.conditions["other_pipette"] = json::array(
      {{{"pid", 4242}, {"program", "pipette-worker-llama"}}, {{"pid", 77}, {"program", ""}}});
  EXPECT_EQ(CellFactsOf(run, env, cell, json::object()).untrusted,
            "measured while 2 other Pipettes measured on the machine (pid 4242 "
            "pipette-worker-llama, pid 77)");
  cell.conditions = {{"not_ready", "the CPU is at 90.0 °C, above the 80 °C allowed"},
                     {"other_pipette", json::array()}};
  EXPECT_EQ(CellFactsOf(run, env, cell, json::object()).untrusted,
            "the readiness gate found the device not ready: the CPU is at 90.0 °C, above the 80 "
            "°C allowed");
  EXPECT_EQ(UntrustedReason(json("not an object")), "");
}

}  // namespace
}  // namespace pipette::metrics
