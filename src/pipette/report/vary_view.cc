#include "pipette/report/vary_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "pipette/report/display.h"
#include "pipette/util/strings.h"

namespace pipette::report {

VaryView BuildVaryView(const metrics::VaryTable& table, const std::vector<metrics::ResultRow>& rows,
                       const runtime::ParamRegistry& params) {
  VaryView view;
  std::set<std::string> notes;
  for (size_t i : table.sources) {
    if (const std::string n = RequantNote(rows[i]); !n.empty()) notes.insert(n);
  }
  for (const std::string& d : table.planned_params) {
    const runtime::ParamDef* def = params.Find(d);
    const bool shown = std::any_of(table.groups.begin(), table.groups.end(), [&](const auto& g) {
      return !g.rows.empty() &&
             std::count(g.rows[0].shown_params.begin(), g.rows[0].shown_params.end(), d) > 0;
    });
    if (shown && def) {
      // Pipette's own rule is one text; a parameter of the runtimes has one default per runtime.
      notes.insert(fmt::format(
          "{}: each runtime applies its own rule, so rows may differ in it ({})", d,
          def->runtimes.empty() ? def->default_doc
                                : "docs/config.md gives each runtime's default and rule"));
    }
  }
  view.notes.assign(notes.begin(), notes.end());
  for (const metrics::VaryGroup& g : table.groups) {
    const metrics::ResultRow& first = rows[g.source];
    std::string fixed;
    if (!g.base_models.empty()) {
      std::string names;
      for (const auto& b : g.base_models) names += (names.empty() ? "" : " / ") + b;
      fixed = fmt::format("base={}", names);
    }
    if (table.dimension == "runtime") {
      fixed = fmt::format("weights={} {}", g.family.empty() ? first.cell->model : g.family,
                          g.precision);
    }
    if (table.dimension == "scheme") {
      fixed = fmt::format("weights={}",
                          first.cell->family.empty() ? first.cell->base_model : first.cell->family);
    }
    for (const std::string& d : table.fixed) {
      fixed +=
          fmt::format("{}{}={}", fixed.empty() ? "" : ", ", d, DimensionDisplay(first, d, params));
    }
    fixed += fmt::format("{}run={}", fixed.empty() ? "" : ", ", first.cell->run_id);
    Table t;
    t.name = "vary";
    t.title = fmt::format("varying {}; fixed: {}", table.dimension, fixed);
    t.columns.push_back({params.Column(table.dimension), ColumnType::kText, "", Align::kLeft});
    for (const auto& c : table.columns) {
      t.columns.push_back({c.name, ColumnType::kText, c.unit, Align::kRight});
    }
    for (const metrics::VaryRow& row : g.rows) {
      const metrics::ResultRow& source = rows[row.source];
      // What tells the row from its runtime's others in the group (flash_attn=off).
      std::string own;
      for (const std::string& p : row.shown_params) {
        own += fmt::format("; {}={}", p, ParamDisplay(source, p, params));
      }
      const std::string runtime = DimensionDisplay(source, "runtime", params);
      std::vector<Value> cells = {
          Text(table.dimension == "quant"
                   ? fmt::format("{} ({})", QuantDisplay(source), source.cell->model)
               : table.dimension == "runtime"
                   ? fmt::format("{} ({}{})", runtime, source.cell->model, own)
               : table.dimension == "scheme" ? fmt::format("{} · {} ({}{})", QuantDisplay(source),
                                                           runtime, source.cell->model, own)
                                             : DimensionDisplay(source, table.dimension, params))};
      for (size_t c = 0; c < table.columns.size(); ++c) {
        if (!row.values[c]) {
          cells.push_back(Text(""));
          continue;
        }
        const bool bytes = table.columns[c].unit == "bytes";
        const std::string v =
            bytes ? FormatBytes(*row.values[c]) : fmt::format("{:.4g}", *row.values[c]);
        cells.push_back(Text(row.ratios[c] ? fmt::format("{} ({:.2f}x)", v, *row.ratios[c]) : v));
      }
      t.Add(std::move(cells));
    }
    view.tables.push_back(std::move(t));
  }
  return view;
}

}  // namespace pipette::report
