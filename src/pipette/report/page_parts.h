// Internal to the HTML page (report/page.h): what its sections share (the labels of cells,
// the charts' fields and axes) and the sections, each in the file of its kind: page_speed.cc
// (controlled variables, speed by a parameter, context depth, sustained decoding, the samples)
// and page_quality.cc (quality against speed and memory, quality by quantization).
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pipette/report/display.h"
#include "pipette/report/page.h"
#include "pipette/util/json_text.h"

namespace pipette::report::page {

using json = nlohmann::ordered_json;
using metrics::ResultRow;
using metrics::Shown;

inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr const char* kSchema = "https://vega.github.io/schema/vega-lite/v6.json";

inline bool Usable(const ResultRow& r) {
  return r.na_reason.empty() && r.cell->cell_status == "ok";
}

// The name of a cell in charts: model, quantization and runtime, then what else tells it from the
// others (the device where there are several, each parameter that takes more than one value, the
// run where there are several).
class Labels {
 public:
  explicit Labels(const std::vector<ResultRow>& rows) {
    std::map<std::string, std::set<std::string>> values;
    std::set<std::string> devices;
    for (const ResultRow& r : rows) {
      devices.insert(r.cell->device);
      if (!r.cell->params.is_object()) continue;
      for (const auto& [k, v] : r.cell->params.items()) values[k].insert(JsonText(v));
    }
    for (const auto& [k, v] : values) {
      if (v.size() > 1) varying_.push_back(k);
    }
    devices_ = devices.size() > 1;
    std::set<int64_t> runs;
    for (const ResultRow& r : rows) runs.insert(r.cell->run_id);
    runs_ = runs.size() > 1;
  }

  // `leave_out`: a parameter the chart draws on an axis.
  std::string Of(const ResultRow& r, const std::string& leave_out = "") const {
    std::string s = fmt::format("{} {} {}", r.cell->model, QuantDisplay(r), r.cell->runtime);
    if (devices_) s += " on " + r.cell->device;
    for (const std::string& k : varying_) {
      if (k == leave_out || !r.cell->params.is_object()) continue;
      auto it = r.cell->params.find(k);
      if (it != r.cell->params.end()) s += fmt::format(" {}={}", k, JsonText(*it));
    }
    if (runs_) s += fmt::format(" (run {})", r.cell->run_id);
    return s;
  }

 private:
  std::vector<std::string> varying_;
  bool devices_ = false;
  bool runs_ = false;  // the rows are of several runs: each label says its run
};

// A figure's name as charts title it: "ppl", "mc acc", "tg16 throughput".
inline std::string FigureName(const ResultRow& r) {
  return r.test == r.metric ? r.metric : fmt::format("{} {}", r.test, r.metric);
}

inline json Field(const std::string& field, const std::string& type, const json& title) {
  return {{"field", field}, {"type", type}, {"title", title}};
}

inline json Tooltip(std::initializer_list<std::pair<const char*, const char*>> fields) {
  json t = json::array();
  for (const auto& [field, type] : fields) t.push_back({{"field", field}, {"type", type}});
  return t;
}

// A chart: the schema, its data inline, then the rest of its specification.
inline Chart MakeChart(std::string id, std::string title, json values, json rest) {
  json spec = {{"$schema", kSchema}, {"data", {{"values", std::move(values)}}}};
  for (auto& [k, v] : rest.items()) spec[k] = v;
  return {std::move(id), std::move(title), std::move(spec)};
}

// The quantitative axis of parameter `name`, its values in `field` of `values`. An integer
// parameter (threads, n_batch, depth) is drawn on an integer axis: ticks at whole numbers only,
// written without decimals. Its type is the one the registry declares; a parameter the registry
// does not know is integer when every value drawn is a whole number.
inline json ParamAxis(const std::string& field, const std::string& title,
                      const runtime::ParamRegistry& params, const std::string& name,
                      const json& values) {
  json axis = Field(field, "quantitative", title);
  bool integer = true;
  if (const runtime::ParamDef* def = params.Find(name)) {
    integer = def->kind == runtime::ParamKind::kInt;
  } else {
    for (const json& v : values) {
      const double x = v.value(field, 0.0);
      integer = integer && x == std::floor(x);
    }
  }
  if (integer) axis["axis"] = {{"tickMinStep", 1}, {"format", "d"}};
  return axis;
}

inline std::optional<double> Param(const ResultRow& r, const std::string& name) {
  if (!r.cell->params.is_object()) return std::nullopt;
  auto it = r.cell->params.find(name);
  if (it == r.cell->params.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

PageSection ControlledVariables(const std::vector<ResultRow>& rows,
                                const runtime::ParamRegistry& params,
                                const metrics::FigureCatalogue& figures);
PageSection SpeedBy(const std::vector<ResultRow>& rows, const Labels& labels,
                    const metrics::FigureCatalogue& figures, const runtime::ParamRegistry& params,
                    const std::string& param, const std::string& what, const std::string& example);
PageSection ContextDepth(const std::vector<ResultRow>& rows,
                         const metrics::FigureCatalogue& figures, const std::vector<Table>& curves,
                         const Labels& labels, const runtime::ParamRegistry& params);
PageSection Sustained(const std::vector<ResultRow>& rows, const metrics::FigureCatalogue& figures,
                      const std::vector<Table>& curves, const Labels& labels);
PageSection Samples(const std::vector<ResultRow>& rows, const Labels& labels,
                    const metrics::FigureCatalogue& figures);
PageSection QualityTradeOffs(const std::vector<ResultRow>& rows, const Labels& labels,
                             const metrics::FigureCatalogue& figures);
PageSection QualityByQuant(const std::vector<ResultRow>& rows, const Labels& labels,
                           const metrics::FigureCatalogue& figures);

}  // namespace pipette::report::page
