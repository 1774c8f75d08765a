#include "pipette/select/view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pipette/report/markdown.h"
#include "pipette/util/strings.h"

namespace pipette::select {

using report::ColumnType;

namespace {

// A value: typed for JSON; as text in `form`, or as a size ("1.50 GiB") for a value in bytes.
report::Value Number(std::optional<double> v, bool for_text, const char* form = "{:.3f}",
                     const std::string& unit = "") {
  if (!v) return for_text ? report::Text("—") : report::Null();
  if (!for_text) return report::Real(*v);
  return report::Text(unit == "bytes" ? FormatBytes(*v) : fmt::format(fmt::runtime(form), *v));
}

std::string WeightsText(const Weights& w) {
  return fmt::format("quality {:g}, efficiency {:g}, robustness {:g}, engineering {:g}", w.quality,
                     w.efficiency, w.robustness, w.engineering);
}

}  // namespace

report::Table RankedTable(const Selection& s, bool for_text) {
  report::Table t;
  t.name = "ranked";
  const ColumnType real = for_text ? ColumnType::kText : ColumnType::kReal;
  const auto left = report::Align::kLeft, right = report::Align::kRight;
  t.columns = {{"rank", ColumnType::kInteger, "", right},
               {"candidate", ColumnType::kText, "", left},
               {"device", ColumnType::kText, "", left},
               {"score", real, "", right}};
  for (size_t g = 0; g < kGroups; ++g) t.columns.push_back({GroupName(Group(g)), real, "", right});
  t.columns.push_back(
      {"pareto", for_text ? ColumnType::kText : ColumnType::kBoolean, "", report::Align::kLeft});
  t.columns.push_back({"not measured", ColumnType::kText, "", report::Align::kLeft});
  int rank = 0;
  for (const Candidate& c : s.ranked) {
    std::vector<report::Value> row = {report::Integer(++rank), report::Text(c.name),
                                      report::Text(c.device), Number(c.total, for_text)};
    for (size_t g = 0; g < kGroups; ++g) {
      row.push_back(s.group_used[g] ? Number(c.groups[g], for_text)
                                    : (for_text ? report::Text("unused") : report::Null()));
    }
    row.push_back(for_text ? report::Text(c.pareto ? "yes" : "") : report::Boolean(c.pareto));
    row.push_back(report::Text(fmt::format("{}", fmt::join(c.missing, ", "))));
    t.Add(std::move(row));
  }
  return t;
}

report::Table FiguresTable(const Selection& s, bool for_text) {
  report::Table t;
  t.name = "figures";
  const ColumnType real = for_text ? ColumnType::kText : ColumnType::kReal;
  const auto left = report::Align::kLeft, right = report::Align::kRight;
  t.columns = {{"candidate", ColumnType::kText, "", left},
               {"group", ColumnType::kText, "", left},
               {"figure", ColumnType::kText, "", left},
               {"better", ColumnType::kText, "", left},
               {"value", real, "", right},
               {"scaled", real, "", right}};
  for (const Candidate& c : s.ranked) {
    for (const Scored& f : c.figures) {
      t.Add({report::Text(c.name), report::Text(GroupName(f.group)), report::Text(f.name),
             report::Text(f.higher_is_better ? "higher" : "lower"),
             Number(f.value, for_text, "{:.6g}", f.unit), Number(f.scaled, for_text)});
    }
  }
  return t;
}

report::Table VetoTable(const Selection& s, bool for_text) {
  report::Table t;
  t.name = "vetoed";
  const auto left = report::Align::kLeft, right = report::Align::kRight;
  t.columns = {{"candidate", ColumnType::kText, "", left},
               {"device", ColumnType::kText, "", left},
               {"constraint", ColumnType::kText, "", left},
               {"figure", ColumnType::kText, "", left},
               {"value", for_text ? ColumnType::kText : ColumnType::kReal, "", right},
               {"by", ColumnType::kText, "", left}};
  for (const Veto& v : s.vetoed) {
    t.Add({report::Text(v.candidate), report::Text(v.device), report::Text(v.constraint),
           report::Text(v.figure), Number(v.value, for_text, "{:.6g}", v.unit),
           report::Text(v.by)});
  }
  return t;
}

void WriteSelectionMarkdown(const Selection& s, const Profile& profile, const std::string& source,
                            std::ostream& out) {
  out << fmt::format("Profile {} ({}){}\n\n", MarkdownLine(profile.name),
                     MarkdownLine(profile.source),
                     profile.about.empty() ? "" : ": " + MarkdownLine(profile.about));
  out << fmt::format("Candidates: {}\n\n", MarkdownLine(source));
  std::vector<std::string> constraints;
  for (const Constraint& c : profile.constraints) constraints.push_back(c.text);
  out << fmt::format(
      "Constraints: {}\n\nWeights: {}\n\n",
      constraints.empty() ? "none" : MarkdownLine(fmt::format("{}", fmt::join(constraints, "; "))),
      WeightsText(profile.weights));
  out << "## Ranked\n\n";
  const report::Table ranked = RankedTable(s, true);
  if (ranked.rows.empty()) {
    out << "No candidate meets every constraint.\n";
  } else {
    report::WriteMarkdownTable(ranked, out);
  }
  if (!s.vetoed.empty()) {
    out << "\n## Vetoed\n\n";
    report::WriteMarkdownTable(VetoTable(s, true), out);
  }
  for (const std::string& n : s.notes) out << "\nNote: " << MarkdownLine(n) << "\n";
  if (!s.unchecked.empty()) {
    out << "\nNot checked (no candidate measured the figure): "
        << MarkdownLine(fmt::format("{}", fmt::join(s.unchecked, "; "))) << "\n";
  }
  if (!s.tree.empty()) {
    out << "\n## Decision tree\n\n";
    for (const Leaf& l : s.tree) {
      if (l.best) {
        out << fmt::format("- on {} → {} (score {:.3f}; {} of {} candidates fit)\n",
                           MarkdownLine(l.device), MarkdownLine(*l.best), l.total,
                           l.candidates - l.vetoed, l.candidates);
      } else {
        out << fmt::format("- on {} → nothing fits ({} candidate(s), every one vetoed)\n",
                           MarkdownLine(l.device), l.candidates);
      }
    }
  }
  out << "\n## Recommendation\n\n" << MarkdownLine(s.recommendation) << "\n";
  const report::Table figures = FiguresTable(s, true);
  if (!figures.rows.empty()) {
    out << "\n## Scored figures\n\nEach figure scaled 0 (the worst candidate that fits) to 1 (the "
           "best); a group scores the mean of its figures.\n\n";
    report::WriteMarkdownTable(figures, out);
  }
}

nlohmann::ordered_json SelectionJson(const Selection& s, const Profile& profile,
                                     const std::string& source) {
  nlohmann::ordered_json j;
  j["schema"] = "pipette.select";
  j["schema_version"] = kSelectSchemaVersion;
  j["candidates"] = source;
  j["profile"] = {{"name", profile.name}, {"source", profile.source}, {"about", profile.about}};
  j["profile"]["constraints"] = nlohmann::ordered_json::array();
  for (const Constraint& c : profile.constraints) j["profile"]["constraints"].push_back(c.text);
  j["profile"]["weights"] = {{"quality", profile.weights.quality},
                             {"efficiency", profile.weights.efficiency},
                             {"robustness", profile.weights.robustness},
                             {"engineering", profile.weights.engineering}};
  for (const report::Table& t :
       {RankedTable(s, false), VetoTable(s, false), FiguresTable(s, false)}) {
    j[t.name] = nlohmann::ordered_json::array();
    for (const report::Row& row : t.rows) j[t.name].push_back(report::RowObject(t, row));
  }
  j["unchecked"] = s.unchecked;
  j["notes"] = s.notes;
  j["tree"] = nlohmann::ordered_json::array();
  for (const Leaf& l : s.tree) {
    j["tree"].push_back(
        {{"device", l.device},
         {"best", l.best ? nlohmann::ordered_json(*l.best) : nlohmann::ordered_json()},
         {"score", l.best ? nlohmann::ordered_json(l.total) : nlohmann::ordered_json()},
         {"candidates", l.candidates},
         {"vetoed", l.vetoed}});
  }
  j["recommendation"] = s.recommendation;
  return j;
}

}  // namespace pipette::select
