// The page's quality sections (report/page_parts.h).
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

namespace pipette::report::page {

// --- quality against speed and memory ---------------------------------------------------------

// The tg test most cells have: the speed the quality charts plot.
std::string MainTgTest(const std::vector<ResultRow>& rows,
                       const metrics::FigureCatalogue& figures) {
  std::map<std::string, std::set<int64_t>> cells;
  std::vector<std::string> order;
  for (const ResultRow& r : rows) {
    if (!Usable(r) || !figures.Shows(r, Shown::kDecodeRate)) continue;
    if (!cells.count(r.test)) order.push_back(r.test);
    cells[r.test].insert(r.cell->cell_id);
  }
  std::string best;
  for (const std::string& t : order) {
    if (best.empty() || cells[t].size() > cells[best].size()) best = t;
  }
  return best;
}

// One scatter of a quality figure against speed or memory with the Pareto frontier: the cells no
// other cell beats on both.
Chart Frontier(const std::string& id, const std::string& title, const std::string& x_title,
               bool x_higher, const std::string& y_title, bool y_higher,
               std::vector<std::pair<const ResultRow*, std::pair<double, double>>> points,
               const Labels& labels) {
  std::vector<std::vector<double>> scored;
  for (const auto& [row, xy] : points) {
    scored.push_back({x_higher ? xy.first : -xy.first, y_higher ? xy.second : -xy.second});
  }
  const std::vector<bool> optimal = stats::ParetoOptimal(scored);
  json values = json::array();
  for (size_t i = 0; i < points.size(); ++i) {
    const ResultRow& r = *points[i].first;
    values.push_back({{"cell", labels.Of(r)},
                      {"model", r.cell->model},
                      {"quant", QuantDisplay(r)},
                      {"runtime", r.cell->runtime},
                      {"x", points[i].second.first},
                      {"y", points[i].second.second},
                      {"pareto", bool(optimal[i])}});
  }
  const json x = Field("x", "quantitative", x_title);
  const json y = {
      {"field", "y"}, {"type", "quantitative"}, {"title", y_title}, {"scale", {{"zero", false}}}};
  json line = {{"transform", {{{"filter", "datum.pareto"}}}},
               {"mark", {{"type", "line"}, {"color", "#888"}, {"strokeDash", {6, 3}}}},
               {"encoding", {{"x", x}, {"y", y}, {"order", {{"field", "x"}}}}}};
  json dots = {{"mark", {{"type", "point"}, {"filled", true}, {"size", 90}}},
               {"encoding",
                {{"x", x},
                 {"y", y},
                 {"color", Field("model", "nominal", "model")},
                 {"shape", Field("quant", "nominal", "quant")},
                 {"tooltip", Tooltip({{"cell", "nominal"},
                                      {"x", "quantitative"},
                                      {"y", "quantitative"},
                                      {"pareto", "nominal"}})}}}};
  return MakeChart(id, title, std::move(values),
                   {{"width", 480}, {"height", 300}, {"layer", {line, dots}}});
}

PageSection QualityTradeOffs(const std::vector<ResultRow>& rows, const Labels& labels,
                             const metrics::FigureCatalogue& figures) {
  PageSection s;
  s.id = "tradeoffs";
  s.title = "Quality against speed and memory";
  const std::string tg = MainTgTest(rows, figures);
  s.about = fmt::format(
      "Each point a cell; the dashed line joins the Pareto frontier, the cells no other cell "
      "beats on both axes.{}",
      tg.empty() ? "" : fmt::format(" Speed is {} throughput, the tg test most cells ran.", tg));
  std::map<int64_t, double> speed, memory;
  for (const ResultRow& r : rows) {
    if (!Usable(r)) continue;
    if (r.test == tg && figures.Shows(r, Shown::kDecodeRate)) {
      speed[r.cell->cell_id] = r.summary.median;
    }
    if (figures.Shows(r, Shown::kPeakMemory)) memory[r.cell->cell_id] = r.summary.median / kMiB;
  }
  // Each judged quality figure (metrics/figures.h), in first-seen order.
  std::vector<std::pair<std::string, std::string>> quality;
  std::map<std::pair<std::string, std::string>, std::vector<const ResultRow*>> of;
  std::map<std::pair<std::string, std::string>, bool> higher;
  for (const ResultRow& r : rows) {
    if (!Usable(r)) continue;
    const metrics::FigureDef* def = figures.Of(r);
    if (!def || def->kind != metrics::FigureKind::kQuality ||
        def->better == metrics::Better::kNotJudged) {
      continue;
    }
    const auto key = std::make_pair(r.test, r.metric);
    if (!of.count(key)) quality.push_back(key);
    of[key].push_back(&r);
    higher[key] = def->better == metrics::Better::kHigher;
  }
  for (const auto& key : quality) {
    const ResultRow& first = *of[key].front();
    const std::string name = FigureName(first);
    const std::string y_title =
        fmt::format("{} ({} is better)", name, higher[key] ? "higher" : "lower");
    for (bool by_speed : {true, false}) {
      const auto& axis = by_speed ? speed : memory;
      std::vector<std::pair<const ResultRow*, std::pair<double, double>>> points;
      for (const ResultRow* r : of[key]) {
        auto it = axis.find(r->cell->cell_id);
        if (it != axis.end()) points.push_back({r, {it->second, r->value}});
      }
      if (points.empty()) continue;
      const std::string id =
          fmt::format("{}-{}-{}", by_speed ? "speed" : "memory", key.first, key.second);
      s.charts.push_back(by_speed ? Frontier(id, fmt::format("{} against {} speed", name, tg),
                                             fmt::format("{} (t/s, higher is better)", tg), true,
                                             y_title, higher[key], std::move(points), labels)
                                  : Frontier(id, fmt::format("{} against peak memory", name),
                                             "peak RSS (MiB, lower is better)", false, y_title,
                                             higher[key], std::move(points), labels));
    }
  }
  if (s.charts.empty()) {
    s.empty =
        "No cell has both a quality figure (ppl, kld, mc, gen) and a tg speed or its peak memory. "
        "An experiment with a quality workload and a tg test fills this section.";
    s.fill = "quality: {kld: ...} or ppl, with a tg test";
  }
  return s;
}

// --- PPL and KLD by quantization --------------------------------------------------------------

PageSection QualityByQuant(const std::vector<ResultRow>& rows, const Labels& labels,
                           const metrics::FigureCatalogue& figures) {
  PageSection s;
  s.id = "quality-by-quant";
  s.title = "PPL and KLD by quantization";
  s.about =
      "Perplexity and KL divergence from the reference of each quantization, largest file first; "
      "bars are the figure, whiskers its standard error where it has one.";
  for (const metrics::FigureDef* def : figures.Showing(Shown::kByQuant)) {
    const std::string& test = def->test;
    const std::string& metric = def->metric;
    json values = json::array();
    bool errors = false;  // some bar has a standard error: whiskers are drawn
    for (const ResultRow& r : rows) {
      if (!Usable(r) || figures.Of(r) != def) continue;
      json v = {{"quant", QuantDisplay(r)},
                {"size_mib", double(r.cell->model_file_size) / kMiB},
                {"series", labels.Of(r)},
                {"model", r.cell->base_model.empty() ? r.cell->model : r.cell->base_model},
                {"value", r.value}};
      if (r.std_error) {
        v["low"] = r.value - *r.std_error;
        v["high"] = r.value + *r.std_error;
        errors = true;
      }
      values.push_back(std::move(v));
    }
    if (values.empty()) continue;
    const json x = {{"field", "quant"},
                    {"type", "nominal"},
                    {"title", "quantization"},
                    {"sort", {{"field", "size_mib"}, {"op", "max"}, {"order", "descending"}}}};
    json bars = {{"mark", "bar"},
                 {"encoding",
                  {{"x", x},
                   {"xOffset", {{"field", "series"}}},
                   {"y", Field("value", "quantitative", metric)},
                   {"color", Field("series", "nominal", "cell")},
                   {"tooltip", Tooltip({{"series", "nominal"},
                                        {"value", "quantitative"},
                                        {"size_mib", "quantitative"}})}}}};
    json whiskers = {{"mark", "rule"},
                     {"encoding",
                      {{"x", x},
                       {"xOffset", {{"field", "series"}}},
                       {"y", {{"field", "low"}, {"type", "quantitative"}}},
                       {"y2", {{"field", "high"}}}}}};
    s.charts.push_back(
        MakeChart(fmt::format("{}-by-quant", test), fmt::format("{} by quantization", metric),
                  std::move(values),
                  {{"width", 420},
                   {"height", 260},
                   {"layer", errors ? json::array({bars, whiskers}) : json::array({bars})}}));
  }
  if (s.charts.empty()) {
    s.empty =
        "No cell measured ppl or kld. An experiment with the ppl or kld workload (kld needs a "
        "reference cell) fills this section.";
    s.fill = "quality: ppl or kld";
  }
  return s;
}

}  // namespace pipette::report::page
