#include "pipette/report/display.h"

#include <fmt/format.h>

#include "pipette/metrics/vary.h"

namespace pipette::report {

std::string QuantDisplay(const metrics::ResultRow& row) {
  return row.cell->quant_origin.starts_with("re-") ? row.cell->quant + "*" : row.cell->quant;
}

std::string ParamDisplay(const metrics::ResultRow& row, const std::string& name,
                         const runtime::ParamRegistry& params) {
  auto it = row.cell->params.find(name);
  if (it == row.cell->params.end()) return "";
  const std::string v = it->is_string() ? it->get<std::string>() : it->dump();
  // A value the runtime resolved from its `unreported` one: "on (auto)", "auto (unresolved)".
  const runtime::ParamDef* def = params.Find(name);
  if (!def || !it->is_string() || !metrics::LeftToRuntime(row, *def)) return v;
  return v == def->unreported ? v + " (unresolved)" : fmt::format("{} ({})", v, def->unreported);
}

std::string DimensionDisplay(const metrics::ResultRow& row, const std::string& dimension,
                             const runtime::ParamRegistry& params) {
  if (dimension == "model") return row.cell->model;
  if (dimension == "quant") return QuantDisplay(row);
  if (dimension == "runtime")
    return fmt::format("{} {}", row.cell->runtime, row.cell->runtime_version);
  if (dimension == "device") return row.cell->device;
  return ParamDisplay(row, dimension, params);
}

std::string RequantNote(const metrics::ResultRow& row) {
  if (!row.cell->quant_origin.starts_with("re-")) return "";
  return fmt::format(
      "* {}: the base file is already quantized, so this is not a quantization of "
      "the full-precision weights",
      row.cell->quant_origin);
}

std::string CountDisplay(int64_t n) {
  if (n >= 1000000000) return fmt::format("{:.2f} B", double(n) / 1e9);
  if (n >= 1000000) return fmt::format("{:.2f} M", double(n) / 1e6);
  return std::to_string(n);
}

std::string FigureDisplay(const metrics::ResultRow& row) {
  std::string s =
      fmt::format("{:.2f} ± {:.2f} {}", row.summary.median, row.summary.stddev, row.unit);
  if (row.summary.noisy) s += fmt::format(" (noisy: CV {:.1f}%)", row.summary.cv * 100.0);
  return s;
}

}  // namespace pipette::report
