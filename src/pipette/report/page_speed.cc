// The page's speed sections (report/page_parts.h).
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

// --- controlled variables ---------------------------------------------------------------------

PageSection ControlledVariables(const std::vector<ResultRow>& rows,
                                const runtime::ParamRegistry& params,
                                const metrics::FigureCatalogue& figures) {
  PageSection s;
  s.id = "controlled";
  s.title = "Controlled variables";
  s.about =
      "One dimension varied, the other three held fixed: each table is one group of cells that "
      "differ only in that dimension, each figure with its ratio to the group's first row.";
  const std::vector<std::string> dims = metrics::VaryDimensions(rows);
  for (const char* dim : {"model", "quant", "runtime", "device"}) {
    if (std::find(dims.begin(), dims.end(), dim) == dims.end()) continue;
    auto table = metrics::BuildVaryTable(rows, dim, params, figures);
    if (!table) continue;
    const VaryView view = BuildVaryView(*table, rows, params);
    json values = json::array();
    for (size_t g = 0; g < table->groups.size() && g < view.tables.size(); ++g) {
      const metrics::VaryGroup& group = table->groups[g];
      if (group.rows.size() < 2) continue;
      // The group must vary what the view is of: files of one base model are its quantizations
      // (the quant view's), rows of one runtime differ in its parameters only.
      std::set<std::string> varied;
      for (const metrics::VaryRow& row : group.rows) {
        const auto& c = *rows[row.source].cell;
        varied.insert(std::string(dim) == "model" ? (c.base_model.empty() ? c.model : c.base_model)
                      : std::string(dim) == "runtime"
                          ? c.runtime
                          : metrics::DimensionKey(rows[row.source], dim, params));
      }
      if (varied.size() < 2) continue;
      const Table& t = view.tables[g];
      s.tables.push_back(t);
      for (size_t i = 0; i < group.rows.size() && i < t.rows.size(); ++i) {
        const auto& label = std::get<std::string>(t.rows[i].values[0]);
        for (size_t c = 0; c < table->columns.size(); ++c) {
          const auto& ratio = group.rows[i].ratios[c];
          if (!ratio) continue;
          values.push_back({{"group", t.title},
                            {"row", label},
                            {"figure", table->columns[c].name},
                            {"value", *group.rows[i].values[c]},
                            {"unit", table->columns[c].unit},
                            {"ratio", *ratio}});
        }
      }
    }
    if (values.empty()) continue;
    json bar = {{"mark", "bar"},
                {"encoding",
                 {{"y", Field("figure", "nominal", nullptr)},
                  {"yOffset", {{"field", "row"}}},
                  {"x", Field("ratio", "quantitative", "× the group's first row")},
                  {"color", Field("row", "nominal", dim)},
                  {"tooltip", Tooltip({{"row", "nominal"},
                                       {"figure", "nominal"},
                                       {"value", "quantitative"},
                                       {"unit", "nominal"},
                                       {"ratio", "quantitative"}})}}}};
    json one = {{"mark", {{"type", "rule"}, {"strokeDash", {4, 4}}}},
                {"encoding", {{"x", {{"datum", 1}}}}}};
    s.charts.push_back(
        MakeChart(fmt::format("vary-{}", dim), fmt::format("Varying {}", dim), std::move(values),
                  {{"facet",
                    {{"field", "group"},
                     {"type", "nominal"},
                     {"title", nullptr},
                     {"header", {{"labelAngle", 0}, {"labelAlign", "left"}, {"labelLimit", 900}}}}},
                   {"columns", 1},
                   {"spec", {{"width", 520}, {"layer", {bar, one}}}}}));
  }
  if (s.tables.empty()) {
    s.empty =
        "No two cells differ in one of model, quantization, runtime and device alone. An "
        "experiment that lists two of one of them (two quantizations of a model, say) fills this "
        "section.";
    s.fill = "two quantizations or models";
  }
  return s;
}

// --- speed by a parameter ---------------------------------------------------------------------

// `example`: a list of values that would fill the section ("[1, 2, 4]").
PageSection SpeedBy(const std::vector<ResultRow>& rows, const Labels& labels,
                    const metrics::FigureCatalogue& figures, const runtime::ParamRegistry& params,
                    const std::string& param, const std::string& what, const std::string& example) {
  PageSection s;
  s.id = "speed-" + param;
  s.title = "Speed by " + what;
  s.about = fmt::format(
      "Throughput of each speed test against {} ({}), one line per configuration; the median of "
      "the repetitions.",
      what, param);
  std::map<std::pair<std::string, std::string>, std::set<double>> xs;  // (series, test) -> values
  json values = json::array();
  for (const ResultRow& r : rows) {
    if (!Usable(r) || !figures.Shows(r, Shown::kRate)) continue;
    const auto x = Param(r, param);
    if (!x) continue;
    const std::string series = labels.Of(r, param);
    xs[{series, r.test}].insert(*x);
    values.push_back({{"series", series},
                      {"test", r.test},
                      {"x", *x},
                      {"median", r.summary.median},
                      {"cv", r.summary.cv}});
  }
  const bool varies =
      std::any_of(xs.begin(), xs.end(), [](auto& e) { return e.second.size() > 1; });
  if (!varies) {
    s.empty = fmt::format(
        "No configuration was measured at two values of {}. Give it a list in the experiment "
        "({}: {}) to fill this section.",
        param, param, example);
    s.fill = fmt::format("{}: {}", param, example);
    return s;
  }
  const json x = ParamAxis("x", what, params, param, values);
  s.charts.push_back(
      MakeChart("speed-by-" + param, "Throughput by " + what, std::move(values),
                {{"facet", {{"field", "test"}, {"type", "nominal"}, {"title", nullptr}}},
                 {"columns", 3},
                 {"resolve", {{"scale", {{"y", "independent"}}}}},
                 {"spec",
                  {{"width", 300},
                   {"height", 220},
                   {"mark", {{"type", "line"}, {"point", true}}},
                   {"encoding",
                    {{"x", x},
                     {"y", Field("median", "quantitative", "t/s")},
                     {"color", Field("series", "nominal", "configuration")},
                     {"tooltip", Tooltip({{"series", "nominal"},
                                          {"x", "quantitative"},
                                          {"median", "quantitative"},
                                          {"cv", "quantitative"}})}}}}}}));
  return s;
}

// --- context depth ----------------------------------------------------------------------------

PageSection ContextDepth(const std::vector<ResultRow>& rows,
                         const metrics::FigureCatalogue& figures, const std::vector<Table>& curves,
                         const Labels& labels, const runtime::ParamRegistry& params) {
  PageSection s;
  s.id = "depth";
  s.title = "Context depth";
  s.about =
      "Decoding speed and memory as the context fills: cells that differ only in their depth, "
      "one line per configuration.";
  std::map<std::string, std::set<double>> depths;  // series -> depths
  std::map<int64_t, const ResultRow*> peak;
  for (const ResultRow& r : rows) {
    if (Usable(r) && figures.Shows(r, Shown::kPeakMemory)) peak[r.cell->cell_id] = &r;
  }
  struct Point {
    std::string series;
    double depth;
    const ResultRow* row;
  };
  std::vector<Point> tps, kv;
  for (const ResultRow& r : rows) {
    if (!Usable(r)) continue;
    const bool rate = figures.Shows(r, Shown::kDecodeRate);
    const bool kv_used = figures.Shows(r, Shown::kKvUsed);
    if (!rate && !kv_used) continue;
    const auto depth = Param(r, "depth");
    if (!depth) continue;
    const std::string series = fmt::format("{} {}", labels.Of(r, "depth"), r.test);
    if (rate) {
      tps.push_back({series, *depth, &r});
      depths[series].insert(*depth);
    } else {
      kv.push_back({series, *depth, &r});
    }
  }
  auto grows = [&](const std::string& series) { return depths[series].size() > 1; };
  json speed = json::array(), memory = json::array();
  std::set<int64_t> peak_done;
  for (const Point& p : tps) {
    if (!grows(p.series)) continue;
    speed.push_back({{"series", p.series},
                     {"depth", p.depth},
                     {"median", p.row->summary.median},
                     {"cv", p.row->summary.cv}});
    auto it = peak.find(p.row->cell->cell_id);
    if (it != peak.end() && peak_done.insert(p.row->cell->cell_id).second) {
      memory.push_back({{"series", labels.Of(*p.row, "depth")},
                        {"depth", p.depth},
                        {"figure", "peak RSS"},
                        {"mib", it->second->summary.median / kMiB}});
    }
  }
  for (const Point& p : kv) {
    if (!grows(p.series)) continue;
    memory.push_back({{"series", p.series},
                      {"depth", p.depth},
                      {"figure", "KV cache used"},
                      {"mib", p.row->summary.median / kMiB}});
  }
  if (speed.empty()) {
    s.empty =
        "No cells differ only in their context depth. Give the experiment a list of depths "
        "(depth: [0, 512, 2048]) with a tg test to fill this section.";
    s.fill = "depth: [0, 512, 2048] and a tg test";
    return s;
  }
  for (const Table& t : curves) {
    if (t.name == "context_growth") s.tables.push_back(t);
  }
  const json x = ParamAxis("depth", "context depth (tokens)", params, "depth", speed);
  s.charts.push_back(MakeChart("depth-speed", "tg against context depth", std::move(speed),
                               {{"width", 480},
                                {"height", 280},
                                {"mark", {{"type", "line"}, {"point", true}}},
                                {"encoding",
                                 {{"x", x},
                                  {"y", Field("median", "quantitative", "t/s")},
                                  {"color", Field("series", "nominal", "configuration")},
                                  {"tooltip", Tooltip({{"series", "nominal"},
                                                       {"depth", "quantitative"},
                                                       {"median", "quantitative"}})}}}}));
  if (!memory.empty()) {
    s.charts.push_back(MakeChart("depth-memory", "Memory against context depth", std::move(memory),
                                 {{"width", 480},
                                  {"height", 280},
                                  {"mark", {{"type", "line"}, {"point", true}}},
                                  {"encoding",
                                   {{"x", x},
                                    {"y", Field("mib", "quantitative", "MiB")},
                                    {"color", Field("series", "nominal", "configuration")},
                                    {"strokeDash", Field("figure", "nominal", "figure")},
                                    {"tooltip", Tooltip({{"series", "nominal"},
                                                         {"figure", "nominal"},
                                                         {"depth", "quantitative"},
                                                         {"mib", "quantitative"}})}}}}));
  }
  return s;
}

// --- sustained decoding -----------------------------------------------------------------------

PageSection Sustained(const std::vector<ResultRow>& rows, const metrics::FigureCatalogue& figures,
                      const std::vector<Table>& curves, const Labels& labels) {
  PageSection s;
  s.id = "sustained";
  s.title = "Sustained decoding";
  s.about =
      "Decoding speed in each 10 s window of a sustained run: a falling line is a device that "
      "does not hold its speed (heat, a governor, a battery limit).";
  json values = json::array();
  for (const ResultRow& r : rows) {
    if (!Usable(r) || !figures.Shows(r, Shown::kWindowRate)) continue;
    for (size_t i = 0; i < r.samples.size(); ++i) {
      values.push_back({{"series", fmt::format("{} {}", labels.Of(r), r.test)},
                        {"t", double(i) * 10},
                        {"tps", r.samples[i]}});
    }
  }
  if (values.empty()) {
    s.empty =
        "No cell ran a sustained test. Add one (sustained60: 60 s of decoding) to fill this "
        "section.";
    s.fill = "a sustained60 test";
    return s;
  }
  for (const Table& t : curves) {
    if (t.name == "sustained") s.tables.push_back(t);
  }
  s.charts.push_back(MakeChart(
      "sustained", "Sustained decoding, t/s per 10 s window", std::move(values),
      {{"width", 520},
       {"height", 280},
       {"mark", {{"type", "line"}, {"point", true}}},
       {"encoding",
        {{"x", Field("t", "quantitative", "window start (s)")},
         {"y", Field("tps", "quantitative", "t/s")},
         {"color", Field("series", "nominal", "cell")},
         {"tooltip",
          Tooltip({{"series", "nominal"}, {"t", "quantitative"}, {"tps", "quantitative"}})}}}}));
  return s;
}

// --- per-repetition samples -------------------------------------------------------------------

PageSection Samples(const std::vector<ResultRow>& rows, const Labels& labels,
                    const metrics::FigureCatalogue& figures) {
  PageSection s;
  s.id = "samples";
  s.title = "Per-repetition samples";
  s.about =
      "Every repetition of every speed and latency figure, one dot each, with a bar at the "
      "median: how far apart the dots lie is the noise. Noisy figures (CV over 5%) are orange.";
  std::vector<std::string> order;
  std::map<std::string, json> values;
  std::map<std::string, std::string> units;
  for (const ResultRow& r : rows) {
    if (!Usable(r) || r.samples.size() < 2 || (r.unit != "t/s" && r.unit != "ms")) continue;
    if (figures.Shows(r, Shown::kWindowRate) || figures.Shows(r, Shown::kWindowWallRate)) {
      continue;  // windows, drawn above
    }
    const std::string name = FigureName(r);
    if (!values.count(name)) {
      order.push_back(name);
      values[name] = json::array();
      units[name] = r.unit;
    }
    for (size_t i = 0; i < r.samples.size(); ++i) {
      values[name].push_back({{"cell", labels.Of(r)},
                              {"repetition", int(i + 1)},
                              {"value", r.samples[i]},
                              {"median", r.summary.median},
                              {"noisy", r.summary.noisy}});
    }
  }
  for (const std::string& name : order) {
    const json y = {{"field", "cell"},
                    {"type", "nominal"},
                    {"title", nullptr},
                    {"axis", {{"labelLimit", 420}}}};
    const json color = {{"field", "noisy"},
                        {"type", "nominal"},
                        {"title", "noisy"},
                        {"scale", {{"domain", {false, true}}, {"range", {"#4c78a8", "#f58518"}}}}};
    json dots = {{"mark", {{"type", "point"}, {"filled", true}, {"opacity", 0.7}}},
                 {"encoding",
                  {{"x",
                    {{"field", "value"},
                     {"type", "quantitative"},
                     {"title", units[name]},
                     {"scale", {{"zero", false}}}}},
                   {"y", y},
                   {"color", color},
                   {"tooltip", Tooltip({{"cell", "nominal"},
                                        {"repetition", "quantitative"},
                                        {"value", "quantitative"},
                                        {"median", "quantitative"}})}}}};
    json median = {
        {"mark", {{"type", "tick"}, {"color", "black"}, {"thickness", 2}}},
        {"encoding", {{"x", {{"field", "median"}, {"type", "quantitative"}}}, {"y", y}}}};
    s.charts.push_back(
        MakeChart(fmt::format("samples-{}", name), fmt::format("{} ({})", name, units[name]),
                  std::move(values[name]),
                  {{"width", 480}, {"height", {{"step", 22}}}, {"layer", {dots, median}}}));
  }
  if (s.charts.empty()) {
    s.empty =
        "No speed or latency figure has two repetitions or more. Run with repetitions: 3 (the "
        "default is 5) to see the noise.";
    s.fill = "repetitions: 3";
  }
  return s;
}

}  // namespace pipette::report::page
