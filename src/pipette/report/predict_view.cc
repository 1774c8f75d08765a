#include "pipette/report/predict_view.h"

#include <fmt/format.h>

#include <cmath>

#include "pipette/report/markdown.h"
#include "pipette/util/strings.h"

namespace pipette::report {

Table PredictionTable(const metrics::PredictionGroup& group) {
  Table t;
  t.name = "predictions";
  t.columns = {{"model", ColumnType::kText, "", Align::kLeft},
               {"quant", ColumnType::kText, "", Align::kLeft},
               {"test", ColumnType::kText, "", Align::kLeft},
               {"depth", ColumnType::kInteger, "", Align::kRight},
               {"MiB/token", ColumnType::kReal, "MiB", Align::kRight},
               {"measured", ColumnType::kReal, "t/s", Align::kRight},
               {"predicted", ColumnType::kReal, "t/s", Align::kRight},
               {"error", ColumnType::kText, "", Align::kRight},
               {"bw_util", ColumnType::kReal, "", Align::kRight}};
  for (const metrics::Prediction& p : group.rows) {
    const metrics::ResultRow& r = *p.measured;
    t.Add({Text(r.cell->model), Text(r.cell->quant), Text(r.test), Integer(p.depth),
           Real(std::round(p.bytes_per_token / (1 << 20) * 100) / 100),
           Real(std::round(r.value * 100) / 100), Real(std::round(p.predicted * 100) / 100),
           Text(p.reference ? "reference" : fmt::format("{:+.1f}%", p.error * 100)),
           p.bw_util ? Real(std::round(*p.bw_util * 1000) / 1000) : Null()});
  }
  return t;
}

std::string PredictionVerdict(const metrics::PredictionGroup& group) {
  if (!group.median_abs_error) {
    return "nothing to compare: one tg figure only (measure another variant or depth)";
  }
  const double e = *group.median_abs_error * 100;
  if (group.bandwidth_bound.value_or(false)) {
    return fmt::format(
        "bandwidth-bound: tg follows bytes per token within {:.1f}% (median), so a variant's size "
        "predicts its speed here",
        e);
  }
  return fmt::format(
      "not bandwidth-bound: predictions from bytes per token miss by {:.1f}% (median); compute, "
      "threads or runtime overhead bound tg here",
      e);
}

void WritePredictionsMarkdown(const std::vector<metrics::PredictionGroup>& groups,
                              std::ostream& out) {
  if (groups.empty()) {
    out << "No tg figure with known bytes per token (GGUF models, measured in process).\n";
    return;
  }
  bool first = true;
  for (const metrics::PredictionGroup& g : groups) {
    if (!first) out << "\n";
    first = false;
    const metrics::ResultRow& ref = *g.reference;
    out << "### " << MarkdownLine(fmt::format("{} · {} · {}", g.device, g.runtime, g.params))
        << "\n\n";
    out << MarkdownLine(fmt::format("Reference: {} ({}) {} at {:.2f} t/s moves {}/s.",
                                    ref.cell->model, ref.cell->quant, ref.test, ref.value,
                                    FormatBytes(g.moved_bytes_per_s)))
        << "\n\n";
    WriteMarkdownTable(PredictionTable(g), out);
    out << "\n" << PredictionVerdict(g) << "\n";
  }
}

nlohmann::ordered_json PredictionsJson(const std::vector<metrics::PredictionGroup>& groups) {
  nlohmann::ordered_json out;
  out["schema"] = "pipette.predict";
  out["schema_version"] = 1;
  out["groups"] = nlohmann::ordered_json::array();
  for (const metrics::PredictionGroup& g : groups) {
    nlohmann::ordered_json j;
    j["device"] = g.device;
    j["runtime"] = g.runtime;
    j["params"] = g.params;
    j["reference"] = {{"model", g.reference->cell->model},
                      {"quant", g.reference->cell->quant},
                      {"test", g.reference->test},
                      {"cell_id", g.reference->cell->cell_id}};
    j["moved_bytes_per_s"] = g.moved_bytes_per_s;
    j["median_abs_error"] = g.median_abs_error ? nlohmann::ordered_json(*g.median_abs_error)
                                               : nlohmann::ordered_json(nullptr);
    j["bandwidth_bound"] =
        g.median_abs_error
            ? nlohmann::ordered_json(*g.median_abs_error <= metrics::kBandwidthBoundError)
            : nlohmann::ordered_json(nullptr);
    j["verdict"] = PredictionVerdict(g);
    j["rows"] = nlohmann::ordered_json::array();
    for (const metrics::Prediction& p : g.rows) {
      j["rows"].push_back({{"model", p.measured->cell->model},
                           {"quant", p.measured->cell->quant},
                           {"cell_id", p.measured->cell->cell_id},
                           {"test", p.measured->test},
                           {"depth", p.depth},
                           {"bytes_per_token", p.bytes_per_token},
                           {"measured_tps", p.measured->value},
                           {"predicted_tps", p.predicted},
                           {"error", p.error},
                           {"bw_util", p.bw_util ? nlohmann::ordered_json(*p.bw_util)
                                                 : nlohmann::ordered_json(nullptr)},
                           {"reference", p.reference}});
    }
    out["groups"].push_back(std::move(j));
  }
  return out;
}

}  // namespace pipette::report
