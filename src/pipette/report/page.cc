#include "pipette/report/page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "pipette/metrics/vary.h"
#include "pipette/report/display.h"
#include "pipette/report/page_parts.h"
#include "pipette/report/vary_view.h"
#include "pipette/stats/pareto.h"
#include "pipette/util/json_text.h"
#include "pipette/util/strings.h"

namespace pipette::report {
namespace {

using json = nlohmann::ordered_json;
using metrics::ResultRow;
using namespace page;  // NOLINT: the sections and what they share (page_parts.h)

// --- devices and models ----------------------------------------------------------------------

// A section of one table; when the table has no row, `empty` instead.
PageSection TableSection(std::string id, std::string title, std::string about, Table t,
                         std::string empty) {
  PageSection s;
  s.id = std::move(id);
  s.title = std::move(title);
  s.about = std::move(about);
  if (t.rows.empty()) {
    s.empty = std::move(empty);
  } else {
    s.tables.push_back(std::move(t));
  }
  return s;
}

PageSection Devices(const std::vector<store::EnvironmentRecord>& environments) {
  Table t;
  t.name = "devices";
  t.columns = {{"environment", ColumnType::kInteger, "", Align::kRight},
               {"fingerprint", ColumnType::kText, "", Align::kLeft},
               {"facts", ColumnType::kJson, "", Align::kLeft}};
  for (const auto& e : environments) {
    t.Add({Integer(e.id), Text(e.fingerprint_id), Json(nlohmann::ordered_json(e.facts))});
  }
  return TableSection("devices", "Devices",
                      "Each environment the runs were measured in: its fingerprint (what "
                      "identifies the device) and every fact recorded about it.",
                      std::move(t), "The store holds no environment for these runs.");
}

PageSection Models(const std::vector<store::CellRecord>& cells) {
  Table t;
  t.name = "models";
  t.columns = {{"model", ColumnType::kText, "", Align::kLeft},
               {"sha256", ColumnType::kText, "", Align::kLeft},
               {"size", ColumnType::kText, "", Align::kRight},
               {"source", ColumnType::kText, "", Align::kLeft},
               {"provenance", ColumnType::kJson, "", Align::kLeft}};
  std::set<std::string> seen;
  for (const auto& c : cells) {
    if (c.model_sha256.empty() || !seen.insert(c.model_sha256).second) continue;
    t.Add({Text(c.model_name), Text(c.model_sha256), Text(FormatBytes(double(c.model_file_size))),
           Text(c.model_source.empty() ? c.model_path : c.model_source),
           Json(nlohmann::ordered_json(c.model_info.value("provenance", nlohmann::json())))});
  }
  return TableSection("models", "Models",
                      "Each model file the cells loaded, by SHA-256: where it came from and, for a "
                      "variant Pipette made, what it was made from and how.",
                      std::move(t), "No cell of these runs loaded a model.");
}

}  // namespace

std::vector<PageSection> BuildPage(const ReportData& data, const std::vector<Table>& curves,
                                   const runtime::ParamRegistry& params,
                                   const metrics::FigureCatalogue& figures) {
  const Labels labels(data.rows);
  std::vector<PageSection> page;
  page.push_back(ControlledVariables(data.rows, params, figures));
  page.push_back(QualityTradeOffs(data.rows, labels, figures));
  page.push_back(SpeedBy(data.rows, labels, figures, params, "threads", "threads", "[1, 2, 4]"));
  page.push_back(
      SpeedBy(data.rows, labels, figures, params, "n_batch", "batch size", "[128, 512]"));
  page.push_back(QualityByQuant(data.rows, labels, figures));
  page.push_back(ContextDepth(data.rows, figures, curves, labels, params));
  page.push_back(Sustained(data.rows, figures, curves, labels));
  page.push_back(Samples(data.rows, labels, figures));
  page.push_back(Devices(data.environments));
  page.push_back(Models(data.cells));
  // Ids unique in the page (figure names may repeat across sections' ids only by accident).
  std::set<std::string> ids;
  for (PageSection& s : page) {
    for (Chart& c : s.charts) {
      std::string id;
      for (char ch : c.id) id += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '-';
      std::string unique = id;
      for (int n = 2; !ids.insert(unique).second; ++n) unique = fmt::format("{}-{}", id, n);
      c.id = unique;
    }
  }
  return page;
}

nlohmann::ordered_json ChartSpecs(const std::vector<PageSection>& page) {
  json charts = json::array();
  for (const PageSection& s : page) {
    for (const Chart& c : s.charts) {
      charts.push_back({{"section", s.id}, {"id", c.id}, {"title", c.title}, {"spec", c.spec}});
    }
  }
  return {{"charts", std::move(charts)}};
}

}  // namespace pipette::report
