#include "pipette/metrics/vary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "pipette/util/strings.h"

namespace pipette::metrics {
namespace {

// The figure a row contributes to the table, as a column name; "" if none: its def's
// (FigureDef::vary_column), for a row of the whole set; a headline's is its test and unit.
std::string ColumnOf(const ResultRow& r, const FigureCatalogue& figures) {
  if (!r.na_reason.empty()) return "";
  const FigureDef* def = figures.Of(r);
  if (def && def->vary_column && figures.IsWholeSet(r)) return def->vary_column(r);
  if (figures.IsHeadline(r)) return fmt::format("{} {}", r.test, r.unit);
  return "";
}

}  // namespace

bool LeftToRuntime(const ResultRow& r, const runtime::ParamDef& def) {
  auto asked = r.cell->params_set.find(def.name);
  if (asked == r.cell->params_set.end()) return def.LeftToRuntime(nullptr);
  if (!asked->is_string()) return false;
  const std::string text = asked->get<std::string>();
  return def.LeftToRuntime(&text);
}

std::string DimensionKey(const ResultRow& r, const std::string& dim,
                         const runtime::ParamRegistry& params) {
  if (dim == "model") return r.cell->model;
  // A variant re-quantized from a quantized file is another thing than one of the same type.
  if (dim == "quant") return r.cell->quant + '\x1f' + r.cell->quant_origin;
  if (dim == "runtime") return r.cell->runtime + '\x1f' + r.cell->runtime_version;
  if (dim == "device") return r.cell->device;
  if (dim == "scheme") {
    return DimensionKey(r, "quant", params) + '\n' + r.cell->model + '\n' +
           DimensionKey(r, "runtime", params);
  }
  auto it = r.cell->params.find(dim);
  if (it == r.cell->params.end()) return "";
  // A value left to the runtime (flash_attn auto) differs from the same value asked for.
  const runtime::ParamDef* def = params.Find(dim);
  if (def && it->is_string() && LeftToRuntime(r, *def))
    return it->dump() + "\x1f" + def->unreported;
  return it->dump();
}

std::string WeightPrecision(const std::string& quant) {
  const std::string q = ToLower(quant);
  if (q == "f32" || q == "fp32" || q == "float32") return "f32";
  if (q == "f16" || q == "fp16" || q == "float16") return "f16";
  if (q == "bf16" || q == "bfloat16") return "bf16";
  return quant;
}

bool FreesRuntime(const std::string& dimension) {
  return dimension == "runtime" || dimension == "scheme";
}

std::vector<std::string> VaryDimensions(const std::vector<ResultRow>& rows) {
  std::vector<std::string> dims = {"model", "quant", "runtime", "device", "scheme"};
  for (const auto& r : rows) {
    for (const auto& [k, v] : r.cell->params.items()) {
      if (std::find(dims.begin(), dims.end(), k) == dims.end()) dims.push_back(k);
    }
  }
  return dims;
}

Result<VaryTable> BuildVaryTable(const std::vector<ResultRow>& rows, const std::string& dimension,
                                 const runtime::ParamRegistry& params,
                                 const FigureCatalogue& figures) {
  const std::vector<std::string> dims = VaryDimensions(rows);
  if (std::find(dims.begin(), dims.end(), dimension) == dims.end()) {
    std::string known;
    for (const auto& d : dims) known += (known.empty() ? "" : ", ") + d;
    return InputError(fmt::format("--vary: unknown dimension '{}'{} (dimensions: {})", dimension,
                                  DidYouMean(dimension, dims), known));
  }
  // A model's file fixes its quantization, so varying one frees the other too; variants of one
  // base stay together (their base is fixed) when the quantization varies.
  std::set<std::string> free = {dimension, "scheme"};
  if (dimension == "quant" || dimension == "model") free = {"model", "quant", "scheme"};
  // Each runtime loads its own file of the same weights (a GGUF, its ONNX conversion): varying
  // the runtime, the rows of one model family and weight precision share a table; varying the
  // scheme, those of one model family.
  const bool by_weights = dimension == "runtime";
  const bool frees_runtime = FreesRuntime(dimension);
  if (frees_runtime) free = {"runtime", "model", "quant", "scheme"};

  VaryTable table;
  table.dimension = dimension;
  std::set<std::string> runtimes;
  for (const ResultRow& r : rows) runtimes.insert(r.cell->runtime);
  for (const std::string& d : dims) {
    if (free.count(d)) continue;
    const runtime::ParamDef* def = frees_runtime ? params.Find(d) : nullptr;
    const bool everyones =
        !def || std::all_of(runtimes.begin(), runtimes.end(),
                            [&](const std::string& rt) { return def->BelongsTo(rt); });
    if (!everyones) {
      table.row_params.push_back(d);
      continue;
    }
    if (def && def->must_apply_as_planned) {
      table.planned_params.push_back(d);
      continue;
    }
    table.fixed.push_back(d);
  }
  std::map<std::string, size_t> column_index;
  std::map<std::string, size_t> group_index;
  // (group, varied value) -> row position
  std::map<std::pair<size_t, std::string>, size_t> row_index;
  for (size_t i = 0; i < rows.size(); ++i) {
    const ResultRow& r = rows[i];
    const std::string col = ColumnOf(r, figures);
    if (col.empty() || r.cell->cell_status != "ok") continue;
    table.sources.push_back(i);
    if (!column_index.count(col)) {
      column_index[col] = table.columns.size();
      table.columns.push_back({col, r.unit});
    }
    std::string fixed;
    for (const std::string& d : table.fixed) fixed += DimensionKey(r, d, params) + '\n';
    fixed += std::to_string(r.cell->run_id);  // within one run
    // Varying the quantization, the files of one model family share a table.
    const std::string precision = by_weights ? WeightPrecision(r.cell->quant) : "";
    const std::string group_key = dimension == "quant" || dimension == "scheme"
                                      ? r.cell->family + '\n' + fixed
                                  : by_weights ? r.cell->family + '\n' + precision + '\n' + fixed
                                               : fixed;
    auto g = group_index.find(group_key);
    if (g == group_index.end()) {
      g = group_index.emplace(group_key, table.groups.size()).first;
      VaryGroup group{i, {}, {}, {}, {}};
      if (by_weights) {
        group.family = r.cell->family;
        group.precision = precision;
      }
      table.groups.push_back(std::move(group));
    }
    VaryGroup& group = table.groups[g->second];
    if (dimension == "quant" && !r.cell->base_model.empty() &&
        std::find(group.base_models.begin(), group.base_models.end(), r.cell->base_model) ==
            group.base_models.end()) {
      group.base_models.push_back(r.cell->base_model);
    }
    std::string value = dimension == "quant" || by_weights
                            ? DimensionKey(r, dimension, params) + '\n' + r.cell->model
                            : DimensionKey(r, dimension, params);
    for (const std::string& p : table.row_params) value += '\n' + DimensionKey(r, p, params);
    for (const std::string& p : table.planned_params) value += '\n' + DimensionKey(r, p, params);
    auto key = std::make_pair(g->second, value);
    auto ri = row_index.find(key);
    if (ri == row_index.end()) {
      ri = row_index.emplace(key, group.rows.size()).first;
      group.rows.push_back({i, {}, {}, {}});
    }
    VaryRow& row = group.rows[ri->second];
    const size_t c = column_index[col];
    if (row.values.size() <= c) row.values.resize(c + 1);
    row.values[c] = r.value;
  }
  for (VaryGroup& g : table.groups) {
    // A parameter of only some runtimes names a row where another row of its runtime and model
    // in the group has another value of it.
    auto runtime_model = [&](const VaryRow& row) {
      return rows[row.source].cell->runtime + '\n' + rows[row.source].cell->model;
    };
    for (const std::string& p : table.row_params) {
      std::map<std::string, std::set<std::string>> values;  // runtime and model -> values
      for (const VaryRow& row : g.rows) {
        values[runtime_model(row)].insert(DimensionKey(rows[row.source], p, params));
      }
      for (VaryRow& row : g.rows) {
        if (values[runtime_model(row)].size() > 1) row.shown_params.push_back(p);
      }
    }
    for (const std::string& p : table.planned_params) {
      std::set<std::string> values;
      for (const VaryRow& row : g.rows) values.insert(DimensionKey(rows[row.source], p, params));
      if (values.size() < 2) continue;
      for (VaryRow& row : g.rows) row.shown_params.push_back(p);
    }
    for (VaryRow& row : g.rows) {
      row.values.resize(table.columns.size());
      row.ratios.resize(table.columns.size());
      for (size_t c = 0; c < table.columns.size(); ++c) {
        const auto& first = g.rows.front().values[c];
        if (row.values[c] && first && *first != 0) row.ratios[c] = *row.values[c] / *first;
      }
    }
  }
  return table;
}

}  // namespace pipette::metrics
