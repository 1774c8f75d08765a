// Controlled-variable views: fix every dimension but one, and compare along that one
// (`pipette report --vary quant`). The grouping and the ratios are computed here; the report
// (report/vary_view.h) names the groups and rows and formats the table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"
#include "pipette/metrics/headline.h"
#include "pipette/runtime/params.h"
#include "pipette/util/result.h"

namespace pipette::metrics {

struct VaryColumn {
  std::string name;  // "pp128 t/s", "peak RSS", "ppl", ...
  std::string unit;
};

struct VaryRow {
  // The first of the rows given with this row's value of the dimension: what names it.
  size_t source = 0;
  // Varying the runtime: the parameters of VaryTable::row_params that tell this row from another
  // of the same runtime and model in its group (llama.cpp with flash attention on and off), and
  // those of VaryTable::planned_params on which the group's rows differ, to name it by.
  std::vector<std::string> shown_params;
  std::vector<std::optional<double>> values;  // one per column; nullopt: not measured
  std::vector<std::optional<double>> ratios;  // value / the first row's value
};

struct VaryGroup {
  // The group's first row: its values of the fixed dimensions are the group's.
  size_t source = 0;
  // Varying the quantization: the base models of its rows, as first seen (files of one model
  // family share a group).
  std::vector<std::string> base_models;
  // Varying the runtime: the weights the group's rows share, their family (the model's own name)
  // and number format (WeightPrecision), since each runtime loads its own file of them.
  std::string family, precision;
  std::vector<VaryRow> rows;
};

struct VaryTable {
  std::string dimension;
  // The dimensions every group holds fixed, in order (each group is also within one run).
  std::vector<std::string> fixed;
  // Varying the runtime (`runtime`, `scheme`): the parameters that only some of the rows'
  // runtimes have (flash_attn, graph_optimization). They cannot be held fixed across runtimes,
  // so they are part of what tells one row from another instead.
  std::vector<std::string> row_params;
  // Varying the runtime: the parameters every runtime has that each resolves by its own rule
  // before the cell runs (ParamDef::must_apply_as_planned). n_ctx: llama.cpp rounds the context
  // the tests need up to a multiple of 256, ONNX Runtime runs it as needed; n_batch: each has its
  // own default, clamped to that context. Not held fixed either: part of the row, shown where
  // rows differ.
  std::vector<std::string> planned_params;
  std::vector<VaryColumn> columns;
  std::vector<VaryGroup> groups;
  std::vector<size_t> sources;  // every row that gave a value, in order
};

// The number format of a model's weights, the same for every runtime's spelling of it ("F32",
// "fp32" and "float32" are "f32"; "F16", "fp16": "f16"; "BF16": "bf16"); any other quantization
// is its own label (Q4_1 in GGUF is not ONNX Runtime's 4-bit).
std::string WeightPrecision(const std::string& quant);

// Dimensions one can vary: model, quant, runtime, device, scheme (a quantization under a runtime:
// model, quant and runtime together, the rows of one model family), or any parameter present in
// the rows.
std::vector<std::string> VaryDimensions(const std::vector<ResultRow>& rows);

// The dimension lets the runtime vary (`runtime`, `scheme`).
bool FreesRuntime(const std::string& dimension);

// The row's cell left parameter `def` to its runtime, which resolved it (ParamDef::LeftToRuntime:
// flash_attn unset or "auto", stored as "on"): shown and told apart as such.
bool LeftToRuntime(const ResultRow& row, const runtime::ParamDef& def);

// What tells one value of a dimension from another in a row (not for display): rows with equal
// keys show the same value. `params`: the parameters the rows' runtimes take.
std::string DimensionKey(const ResultRow& row, const std::string& dimension,
                         const runtime::ParamRegistry& params);

// One group per combination of the other dimensions within one run; rows in first-seen order;
// only cells that completed. An unknown dimension is an input error with a suggestion. Columns:
// the headline figures (the speed tests', "<test> <unit>") and every figure that declares one
// (FigureDef::vary_column: peak RSS, file size, the quality workloads' figures).
Result<VaryTable> BuildVaryTable(const std::vector<ResultRow>& rows, const std::string& dimension,
                                 const runtime::ParamRegistry& params,
                                 const FigureCatalogue& figures);

}  // namespace pipette::metrics
