#include "pipette/metrics/roofline.h"

#include <gtest/gtest.h>

#include "pipette/metrics/derive.h"
#include "pipette/workload/registry.h"

namespace pipette::metrics {
namespace {

using nlohmann::json;

// 2 layers of 10 K + 10 V elements per position, the first sliding with a window of 4; weights
// of 1000 bytes.
json Reads() {
  return {{"weight_bytes", 1000},
          {"output_tied", true},
          {"kv",
           {{{"layers", 1}, {"k_per_position", 10}, {"v_per_position", 10}, {"window", 4}},
            {{"layers", 1}, {"k_per_position", 10}, {"v_per_position", 10}, {"window", 0}}}},
          {"kv_source", "test"}};
}

store::CellRecord Cell(json reads = Reads(), json params = json::object()) {
  store::CellRecord c;
  c.id = 1;
  c.model_info = {{"file", {{"format", "gguf"}, {"token_reads", reads}}}};
  c.params = std::move(params);
  return c;
}

const json kDevice = {{"memory_bandwidth", {{"triad_bytes_per_s", 1e6}}}};

json Tg(int n, int depth) {
  json ends = json::array();
  for (int i = 1; i <= n; ++i) ends.push_back(int64_t{1000000000} + i * 100000000);  // 10 t/s
  return {{"t_start_ns", 1000000000}, {"token_end_ns", ends}, {"request", {{"depth", depth}}}};
}

TEST(RooflineTest, BytesPerTokenWithTheWindowCap) {
  const Roofline roof = RooflineOf(Cell(), kDevice);
  EXPECT_TRUE(roof.na_reason.empty()) << roof.na_reason;
  EXPECT_EQ(roof.bandwidth, 1e6);
  // tg2 at depth 4: positions 5 and 6; the sliding layer reads 4 of them, the other all.
  // KV per position per layer: 20 elements x 2 bytes (f16).
  auto bytes = TgBytesPerToken(roof, Tg(2, 4));
  ASSERT_TRUE(bytes);
  EXPECT_DOUBLE_EQ(*bytes, 1000 + (4 * 40 + 5.5 * 40));
  EXPECT_DOUBLE_EQ(*KvBytesUsed(roof, Tg(2, 4)), 4 * 40 + 6 * 40);
  // swa_full with flash attention off: every cached position is read, and kept.
  const Roofline full =
      RooflineOf(Cell(Reads(), {{"swa_full", true}, {"flash_attn", "off"}}), kDevice);
  EXPECT_FALSE(full.flash_attn);
  EXPECT_DOUBLE_EQ(*TgBytesPerToken(full, Tg(2, 4)), 1000 + 2 * 5.5 * 40);
  EXPECT_DOUBLE_EQ(*KvBytesUsed(full, Tg(2, 4)), 2 * 6 * 40);
  // The smaller cache (5 cells as the context reported it) without flash attention: positions
  // that slid out stay until reused, and are read; with flash attention only the window is read.
  const json context = {
      {"swa_full", false}, {"flash_attn_resolved", "off"}, {"swa_cache_cells", 5}};
  const Roofline small = RooflineOf(Cell(), kDevice, context);
  EXPECT_EQ(small.swa_cells, 5);
  EXPECT_DOUBLE_EQ(*TgBytesPerToken(small, Tg(2, 4)), 1000 + (5 * 40 + 5.5 * 40));
  EXPECT_DOUBLE_EQ(*KvBytesUsed(small, Tg(2, 4)), 5 * 40 + 6 * 40);
  json fa_on = context;
  fa_on["flash_attn_resolved"] = "on";
  EXPECT_DOUBLE_EQ(*TgBytesPerToken(RooflineOf(Cell(), kDevice, fa_on), Tg(2, 4)),
                   1000 + (4 * 40 + 5.5 * 40));
}

TEST(RooflineTest, KvTypesAndAllocation) {
  const Roofline q8 = RooflineOf(Cell(Reads(), {{"type_k", "q8_0"}, {"type_v", "f32"}}), kDevice);
  ASSERT_TRUE(q8.na_reason.empty()) << q8.na_reason;
  EXPECT_DOUBLE_EQ(q8.k_bytes, 34.0 / 32.0);
  EXPECT_DOUBLE_EQ(q8.v_bytes, 4.0);
  const Roofline roof = RooflineOf(Cell(), kDevice);
  // 512 cells for the global layer, 256 for the sliding one (llama.cpp's smaller SWA cache).
  EXPECT_DOUBLE_EQ(*KvBytesAllocated(roof, {{"n_ctx", 512}, {"swa_cache_cells", 256}}),
                   512 * 40 + 256 * 40);
  EXPECT_DOUBLE_EQ(*KvBytesAllocated(roof, {{"n_ctx", 512}, {"swa_cache_cells", nullptr}}),
                   2 * 512 * 40);
  EXPECT_FALSE(KvBytesAllocated(roof, json::object()));
}

TEST(RooflineTest, NaReasons) {
  EXPECT_NE(RooflineOf(Cell(Reads(), {{"type_k", "q3_k"}}), kDevice).na_reason.find("type_k=q3_k"),
            std::string::npos);
  EXPECT_NE(
      RooflineOf(Cell(json{{"na", "no block_count"}}), kDevice).na_reason.find("no block_count"),
      std::string::npos);
  store::CellRecord onnx = Cell(json{{"na", "bytes per token are known for GGUF models only"}});
  EXPECT_EQ(RooflineOf(onnx, kDevice).na_reason,
            "bytes per token unknown: bytes per token are known for GGUF models only");
  store::CellRecord older = Cell();
  older.model_info = {{"file", {{"format", "gguf"}}}};  // before token_reads was recorded
  EXPECT_TRUE(RooflineOf(older, kDevice).predates);
  const Roofline no_bw = RooflineOf(Cell(), json::object());
  EXPECT_NE(no_bw.na_reason.find("was not measured"), std::string::npos);
  EXPECT_TRUE(no_bw.reads);  // bytes per token are still given
  const Roofline bw_na = RooflineOf(Cell(), {{"memory_bandwidth", {{"na", "probe failed"}}}});
  EXPECT_NE(bw_na.na_reason.find("probe failed"), std::string::npos);
}

// Through DeriveRows: per repetition, bw_util = t/s x bytes per token / bandwidth; a device
// without a bandwidth figure gives bytes per token and an n/a bw_util with the reason.
TEST(RooflineTest, DerivedRows) {
  CellSamples c;
  c.cell = Cell();
  c.cell.status = "ok";
  for (int rep = 0; rep < 2; ++rep) {
    store::SampleRecord s;
    s.test = "tg2";
    s.rep = rep;
    s.raw = Tg(2, 0);
    c.samples.push_back(s);
  }
  store::RunRecord run;
  store::EnvironmentRecord env{1, "id", kDevice};
  auto rows = DeriveRows(run, env, {c}, workload::Derivers());
  auto find = [&](const std::vector<ResultRow>& rs, const std::string& metric) -> const ResultRow* {
    for (const ResultRow& r : rs) {
      if (r.test == "tg2" && r.metric == metric) return &r;
    }
    return nullptr;
  };
  const ResultRow* util = find(rows, "bw_util");
  ASSERT_TRUE(util);
  // 10 t/s x (1000 + 1.5 x 80) bytes / 1e6 bytes/s.
  ASSERT_EQ(util->samples.size(), 2u);
  EXPECT_DOUBLE_EQ(util->value, 10 * 1120.0 / 1e6);
  EXPECT_EQ(util->unit, "fraction");
  ASSERT_TRUE(find(rows, "kv_bytes_used"));
  EXPECT_DOUBLE_EQ(find(rows, "kv_bytes_used")->value, 2 * 2 * 40.0);

  env.facts = json::object();
  rows = DeriveRows(run, env, {c}, workload::Derivers());
  ASSERT_TRUE(find(rows, "bytes_per_token"));
  util = find(rows, "bw_util");
  ASSERT_TRUE(util);
  EXPECT_NE(util->na_reason.find("was not measured"), std::string::npos) << util->na_reason;

  // A cell an older Pipette recorded (no token_reads): reported as it was, without these rows.
  c.cell.model_info = {{"file", {{"format", "gguf"}}}};
  rows = DeriveRows(run, env, {c}, workload::Derivers());
  EXPECT_FALSE(find(rows, "bw_util"));
  EXPECT_FALSE(find(rows, "bytes_per_token"));
}

// A served model's KV cache is the server's: a server Pipette started (here with 4 slots of 256
// positions each, as llama-server's /props said) holds 4 x 256 cells a layer, not one slot of the
// plan's n_ctx; a server Pipette did not start is n/a with the reason, whatever its context.
TEST(RooflineTest, AServedModelsKvCacheIsTheServersSlotsOrNa) {
  json global_only = Reads();
  global_only["kv"] =
      json::array({{{"layers", 2}, {"k_per_position", 10}, {"v_per_position", 10}, {"window", 0}}});
  store::CellRecord started = Cell(global_only);
  started.runtime_build = {{"endpoint", {{"server", {{"bundled", true}}}}}};
  const json context = {
      {"n_ctx", 256}, {"slots", 4}, {"server_n_ctx_per_slot", 256}, {"server_started", true}};
  const Roofline roof = RooflineOf(started, kDevice, context);
  EXPECT_TRUE(roof.served && roof.server_started);
  EXPECT_DOUBLE_EQ(*KvBytesAllocated(roof, context), 2 * 4 * 256 * 40.0);
  EXPECT_EQ(KvBytesAllocatedNa(roof, context), "");
  // Without the server's own figures: n/a, never the plan's n_ctx.
  EXPECT_FALSE(KvBytesAllocated(roof, {{"n_ctx", 256}, {"slots", 4}}));
  EXPECT_NE(KvBytesAllocatedNa(roof, {{"n_ctx", 256}, {"slots", 4}}).find("context per slot"),
            std::string::npos);
  // A running server (-c 512) for a cell planned at 256: n/a.
  store::CellRecord running = Cell(global_only);
  running.runtime_build = {{"endpoint", {{"base_url", "http://127.0.0.1:8080/v1"}}}};
  const json running_context = {{"n_ctx", 256}, {"slots", 1}, {"server_n_ctx_per_slot", 512}};
  const Roofline r = RooflineOf(running, kDevice, running_context);
  EXPECT_FALSE(KvBytesAllocated(r, running_context));
  EXPECT_NE(KvBytesAllocatedNa(r, running_context).find("did not start"), std::string::npos);
  // Through DeriveRows: the n/a row with its reason.
  CellSamples c;
  c.cell = running;
  c.cell.status = "ok";
  store::SampleRecord s;
  s.test = "context";
  s.raw = running_context;
  c.samples.push_back(s);
  store::RunRecord run;
  store::EnvironmentRecord env{1, "id", kDevice};
  bool na = false;
  for (const ResultRow& row : DeriveRows(run, env, {c}, workload::Derivers())) {
    if (row.metric != "kv_bytes_allocated_model") continue;
    EXPECT_NE(row.na_reason.find("did not start"), std::string::npos) << row.na_reason;
    na = true;
  }
  EXPECT_TRUE(na);
  // An in-process cell is as before: n_ctx cells.
  EXPECT_DOUBLE_EQ(*KvBytesAllocated(RooflineOf(Cell(global_only), kDevice), {{"n_ctx", 256}}),
                   2 * 256 * 40.0);
}

}  // namespace
}  // namespace pipette::metrics
