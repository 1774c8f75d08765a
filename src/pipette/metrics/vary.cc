#include "pipette/metrics/vary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "pipette/util/strings.h"

namespace pipette::metrics {
namespace {

std::string Dimension(const ResultRow& r, const std::string& dim) {
  if (dim == "model") return r.model;
  if (dim == "quant") return QuantDisplay(r);
  if (dim == "runtime") return fmt::format("{} {}", r.runtime, r.runtime_version);
  if (dim == "device") return r.device;
  return ParamDisplay(r, dim);
}

// The figure a row contributes to the table, as a column name; "" if none.
std::string ColumnOf(const ResultRow& r) {
  if (!r.na_reason.empty()) return "";
  if (IsHeadline(r)) return fmt::format("{} {}", r.test, r.unit);
  if (r.test == "memory" && r.metric == "peak_rss") return "peak RSS";
  if (r.test == "model" && r.metric == "file_size") return "file size";
  if (r.test == "ppl" && r.metric == "ppl") return "ppl";
  if (r.test == "kld" && r.metric == "kld_mean") {
    // A top-k figure is a lower bound of the full one: never in the same column.
    return r.subset.starts_with("lower bound") ? "kld mean (top-k lower bound)" : "kld mean";
  }
  if (r.test == "mc" && r.metric == "acc" && r.subset.empty()) return "mc acc";
  if (r.test == "gen" && r.metric == "task_acc" && r.subset.empty()) return "gen task_acc";
  return "";
}

}  // namespace

std::vector<std::string> VaryDimensions(const std::vector<ResultRow>& rows) {
  std::vector<std::string> dims = {"model", "quant", "runtime", "device"};
  for (const auto& r : rows) {
    for (const auto& [k, v] : r.params.items()) {
      if (std::find(dims.begin(), dims.end(), k) == dims.end()) dims.push_back(k);
    }
  }
  return dims;
}

Result<VaryTable> BuildVaryTable(const std::vector<ResultRow>& rows, const std::string& dimension) {
  const std::vector<std::string> dims = VaryDimensions(rows);
  if (std::find(dims.begin(), dims.end(), dimension) == dims.end()) {
    std::string known;
    for (const auto& d : dims) known += (known.empty() ? "" : ", ") + d;
    return InputError(fmt::format("--vary: unknown dimension '{}'{} (dimensions: {})", dimension,
                                  DidYouMean(dimension, dims), known));
  }
  // A model's file fixes its quantization, so varying one frees the other too; variants of one
  // base stay together (their base is fixed) when the quantization varies.
  std::set<std::string> free = {dimension};
  if (dimension == "quant" || dimension == "model") free = {"model", "quant"};
  std::set<std::string> notes;

  VaryTable table;
  table.dimension = dimension;
  std::map<std::string, size_t> column_index;
  std::map<std::string, size_t> group_index;
  std::vector<std::vector<std::string>> group_bases;  // per group: its rows' base models
  // (group, varied value) -> row position
  std::map<std::pair<size_t, std::string>, size_t> row_index;
  for (const ResultRow& r : rows) {
    const std::string col = ColumnOf(r);
    if (col.empty() || r.cell_status != "ok") continue;
    if (!column_index.count(col)) {
      column_index[col] = table.columns.size();
      table.columns.push_back({col, r.unit});
    }
    std::string fixed;
    for (const std::string& d : dims) {
      if (free.count(d)) continue;
      fixed += fmt::format("{}{}={}", fixed.empty() ? "" : ", ", d, Dimension(r, d));
    }
    fixed += fmt::format("{}run={}", fixed.empty() ? "" : ", ", r.run_id);  // within one run
    if (const std::string note = RequantNote(r); !note.empty()) notes.insert(note);
    // Varying the quantization, the files of one model family share a table; it is shown by the
    // base models' names.
    const std::string group_key = dimension == "quant" ? r.family + '\n' + fixed : fixed;
    auto g = group_index.find(group_key);
    if (g == group_index.end()) {
      g = group_index.emplace(group_key, table.groups.size()).first;
      table.groups.push_back({fixed, {}});
      group_bases.emplace_back();
    }
    VaryGroup& group = table.groups[g->second];
    std::vector<std::string>& bases = group_bases[g->second];
    if (dimension == "quant" && !r.base_model.empty() &&
        std::find(bases.begin(), bases.end(), r.base_model) == bases.end()) {
      bases.push_back(r.base_model);
    }
    const std::string value = dimension == "quant"
                                  ? fmt::format("{} ({})", QuantDisplay(r), r.model)
                                  : Dimension(r, dimension);
    auto key = std::make_pair(g->second, value);
    auto ri = row_index.find(key);
    if (ri == row_index.end()) {
      ri = row_index.emplace(key, group.rows.size()).first;
      group.rows.push_back({value, {}, {}});
    }
    VaryRow& row = group.rows[ri->second];
    const size_t c = column_index[col];
    if (row.values.size() <= c) row.values.resize(c + 1);
    row.values[c] = r.value;
  }
  table.notes.assign(notes.begin(), notes.end());
  for (size_t i = 0; i < table.groups.size(); ++i) {
    std::string names;
    for (const auto& b : group_bases[i]) names += (names.empty() ? "" : " / ") + b;
    if (!names.empty())
      table.groups[i].fixed = fmt::format("base={}, {}", names, table.groups[i].fixed);
  }
  for (VaryGroup& g : table.groups) {
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
