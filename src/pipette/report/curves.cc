#include "pipette/report/curves.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

#include "pipette/metrics/sustained.h"
#include "pipette/util/strings.h"

namespace pipette::report {
namespace {

using metrics::ResultRow;

Column TextColumn(std::string name, Align align) {
  return {std::move(name), ColumnType::kText, "", align};
}

using metrics::Shown;

// A cell's rows by the part their figure plays in the report (metrics::Shown): by test, and by
// the part alone for the cell's own figures (its peak memory).
struct CellRows {
  std::map<std::pair<std::string, Shown>, const ResultRow*> by_test;
  std::map<Shown, const ResultRow*> by_part;

  void Add(const ResultRow& r, const metrics::FigureCatalogue& figures) {
    const metrics::FigureDef* d = figures.Of(r);
    if (!d) return;
    for (unsigned bit = 1; bit != 0 && bit <= d->shown; bit <<= 1) {
      if (!(d->shown & bit)) continue;
      by_test[{r.test, Shown(bit)}] = &r;
      by_part[Shown(bit)] = &r;
    }
  }
  const ResultRow* Of(const std::string& test, Shown part) const {
    auto it = by_test.find({test, part});
    return it == by_test.end() ? nullptr : it->second;
  }
  const ResultRow* Of(Shown part) const {
    auto it = by_part.find(part);
    return it == by_part.end() ? nullptr : it->second;
  }
};

std::string Median(const ResultRow* r, const char* format_spec = "{:.2f}") {
  if (!r) return "";
  if (!r->na_reason.empty()) return "n/a";
  return fmt::format(fmt::runtime(format_spec), r->summary.median);
}

std::string Bytes(const ResultRow* r) {
  if (!r) return "";
  if (!r->na_reason.empty()) return "n/a";
  return FormatBytes(r->summary.median);
}

std::string Label(const ResultRow& r) {
  return fmt::format("{} {} {}", r.cell->model, r.cell->quant, r.cell->runtime);
}

int64_t Depth(const ResultRow& r) {
  const auto it = r.cell->params.find("depth");
  return it != r.cell->params.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

Table ContextGrowthTable(const std::vector<ResultRow>& rows,
                         const metrics::FigureCatalogue& figures) {
  Table t;
  t.name = "context_growth";
  t.title = "Context growth: tg and memory as the context fills";
  // Cells by what they share but the depth: the model's file, runtime, device and every other
  // parameter.
  std::map<int64_t, CellRows> by_cell;
  std::map<std::string, std::set<int64_t>> depths;  // group -> depths
  std::map<int64_t, std::string> group_of;
  for (const ResultRow& r : rows) {
    by_cell[r.cell->cell_id].Add(r, figures);
    // What the experiment set (the runtime's own values follow the context the depth needs).
    nlohmann::json params = r.cell->params_set.is_object() ? r.cell->params_set : r.cell->params;
    params.erase("depth");
    params.erase("n_ctx");
    const std::string group = fmt::format("{}|{}|{}|{}|{}", r.cell->run_id, r.cell->model_sha256,
                                          r.cell->runtime, r.cell->device_id, params.dump());
    group_of[r.cell->cell_id] = group;
    depths[group].insert(Depth(r));
  }
  t.columns = {TextColumn("model", Align::kLeft),         TextColumn("device", Align::kLeft),
               TextColumn("depth", Align::kRight),        TextColumn("test", Align::kRight),
               TextColumn("t/s", Align::kRight),          TextColumn("kv used", Align::kRight),
               TextColumn("kv allocated", Align::kRight), TextColumn("bw_util", Align::kRight),
               TextColumn("peak RSS", Align::kRight)};
  // In order: group, depth, test.
  std::vector<std::tuple<std::string, int64_t, int64_t, std::string, const ResultRow*>> lines;
  for (const ResultRow& r : rows) {
    if (!figures.Shows(r, Shown::kDecodeRate)) continue;
    const std::string& group = group_of[r.cell->cell_id];
    if (depths[group].size() < 2) continue;
    lines.emplace_back(group, Depth(r), r.cell->cell_id, r.test, &r);
  }
  std::sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a), std::get<3>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b), std::get<3>(b));
  });
  for (const auto& [group, depth, cell, test, r] : lines) {
    const CellRows& own = by_cell[cell];
    t.Add(
        {Text(Label(*r)), Text(r->cell->device), Text(std::to_string(depth)), Text(test),
         Text(r->na_reason.empty() ? fmt::format("{:.2f}", r->summary.median) : "n/a"),
         Text(Bytes(own.Of(test, Shown::kKvUsed))), Text(Bytes(own.Of(Shown::kKvAllocated))),
         Text(Median(own.Of(test, Shown::kBandwidthUse))), Text(Bytes(own.Of(Shown::kPeakMemory)))},
        r->summary.noisy);
  }
  return t;
}

Table SustainedTable(const std::vector<ResultRow>& rows, const metrics::FigureCatalogue& figures) {
  Table t;
  t.name = "sustained";
  t.title = "Sustained decoding: each 10 s window";
  t.columns = {TextColumn("model", Align::kLeft), TextColumn("device", Align::kLeft),
               TextColumn("test", Align::kRight), TextColumn("window", Align::kRight),
               TextColumn("t/s", Align::kRight),  TextColumn("wall t/s", Align::kRight),
               TextColumn("temp", Align::kRight), TextColumn("freq", Align::kRight),
               TextColumn("power", Align::kRight)};
  // A sustained test's rows: those of a test with a figure drawn per window.
  std::map<std::pair<int64_t, std::string>, CellRows> runs;
  std::set<std::pair<int64_t, std::string>> windowed;
  for (const ResultRow& r : rows) {
    if (figures.Shows(r, Shown::kWindowRate)) windowed.insert({r.cell->cell_id, r.test});
  }
  for (const ResultRow& r : rows) {
    if (windowed.count({r.cell->cell_id, r.test})) runs[{r.cell->cell_id, r.test}].Add(r, figures);
  }
  for (const auto& run : runs) {
    const auto& key = run.first;
    // A lambda may not capture a structured binding (clang before 16).
    auto find = [&run](Shown part) { return run.second.Of(run.first.second, part); };
    const ResultRow* tps = find(Shown::kWindowRate);
    if (!tps) continue;
    if (!tps->na_reason.empty()) {
      t.footnotes.push_back(fmt::format("{} {} on {}: n/a: {}", Label(*tps), key.second,
                                        tps->cell->device, tps->na_reason));
      continue;
    }
    const ResultRow* wall = find(Shown::kWindowWallRate);
    const ResultRow* temp = find(Shown::kWindowTemp);
    const ResultRow* freq = find(Shown::kWindowFreq);
    const ResultRow* power = find(Shown::kWindowPower);
    for (size_t i = 0; i < tps->samples.size(); ++i) {
      auto at = [&](const ResultRow* r, const char* unit) {
        return r && i < r->samples.size() ? fmt::format("{:.1f} {}", r->samples[i], unit)
                                          : std::string("n/a");
      };
      t.Add({Text(Label(*tps)), Text(tps->cell->device), Text(key.second),
             Text(fmt::format("{}-{} s", i * 10, (i + 1) * 10)),
             Text(fmt::format("{:.2f}", tps->samples[i])),
             Text(wall && i < wall->samples.size() ? fmt::format("{:.2f}", wall->samples[i])
                                                   : std::string("n/a")),
             Text(at(temp, "°C")), Text(at(freq, "MHz")), Text(at(power, "W"))});
    }
    if (const ResultRow* decay = find(Shown::kDecay)) {
      const double d = decay->summary.median;
      t.footnotes.push_back(fmt::format(
          "{} {} on {}: decay {:.1f}% ({:.2f} → {:.2f} t/s from the first window to the last){}",
          Label(*tps), key.second, tps->cell->device, d, tps->samples.front(), tps->samples.back(),
          metrics::DecayFlagged(d / 100)
              ? fmt::format(": over {:.0f}%, FLAGGED: the device did not hold its speed",
                            metrics::kDecayFlag * 100)
              : ""));
    }
  }
  return t;
}

}  // namespace pipette::report
