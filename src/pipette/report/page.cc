#include "pipette/report/page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "pipette/metrics/vary.h"
#include "pipette/report/display.h"
#include "pipette/report/vary_view.h"
#include "pipette/stats/pareto.h"
#include "pipette/util/json_text.h"
#include "pipette/util/strings.h"

namespace pipette::report {
namespace {

using json = nlohmann::ordered_json;
using metrics::ResultRow;
using metrics::Shown;

constexpr double kMiB = 1024.0 * 1024.0;
constexpr const char* kSchema = "https://vega.github.io/schema/vega-lite/v6.json";

bool Usable(const ResultRow& r) { return r.na_reason.empty() && r.cell->cell_status == "ok"; }

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
std::string FigureName(const ResultRow& r) {
  return r.test == r.metric ? r.metric : fmt::format("{} {}", r.test, r.metric);
}

json Field(const std::string& field, const std::string& type, const json& title) {
  return {{"field", field}, {"type", type}, {"title", title}};
}

json Tooltip(std::initializer_list<std::pair<const char*, const char*>> fields) {
  json t = json::array();
  for (const auto& [field, type] : fields) t.push_back({{"field", field}, {"type", type}});
  return t;
}

// A chart: the schema, its data inline, then the rest of its specification.
Chart MakeChart(std::string id, std::string title, json values, json rest) {
  json spec = {{"$schema", kSchema}, {"data", {{"values", std::move(values)}}}};
  for (auto& [k, v] : rest.items()) spec[k] = v;
  return {std::move(id), std::move(title), std::move(spec)};
}

// The quantitative axis of parameter `name`, its values in `field` of `values`. An integer
// parameter (threads, n_batch, depth) is drawn on an integer axis: ticks at whole numbers only,
// written without decimals. Its type is the one the registry declares; a parameter the registry
// does not know is integer when every value drawn is a whole number.
json ParamAxis(const std::string& field, const std::string& title,
               const runtime::ParamRegistry& params, const std::string& name, const json& values) {
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

std::optional<double> Param(const ResultRow& r, const std::string& name) {
  if (!r.cell->params.is_object()) return std::nullopt;
  auto it = r.cell->params.find(name);
  if (it == r.cell->params.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

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
