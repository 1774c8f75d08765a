#include "pipette/select/view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pipette/report/markdown.h"
#include "pipette/util/strings.h"

namespace pipette::select {

using report::ColumnType;

namespace {

const auto kLeft = report::Align::kLeft;
const auto kRight = report::Align::kRight;

// A score or a scaled figure: three decimals, "—" where there is none.
report::Column Score(const std::string& name, const std::string& null = "—") {
  return {name, ColumnType::kReal, "", kRight, {.real = "{:.3f}", .null = null}};
}

// A figure's value in its unit (Row::unit): six significant digits, or a size in bytes.
report::Column FigureValue(const std::string& name) {
  return {name, ColumnType::kReal, "", kRight, {.real = "{:.6g}", .null = "—", .sizes = true}};
}

std::string WeightsText(const Weights& w) {
  return fmt::format("quality {:g}, efficiency {:g}, robustness {:g}, engineering {:g}", w.quality,
                     w.efficiency, w.robustness, w.engineering);
}

}  // namespace

report::Table RankedTable(const Selection& s) {
  report::Table t;
  t.name = "ranked";
  t.columns = {{"rank", ColumnType::kInteger, "", kRight},
               {"candidate", ColumnType::kText, "", kLeft},
               {"device", ColumnType::kText, "", kLeft},
               Score("score")};
  // A group no figure of the profile scores reads "unused".
  for (size_t g = 0; g < kGroups; ++g) {
    t.columns.push_back(Score(GroupName(Group(g)), s.group_used[g] ? "—" : "unused"));
  }
  t.columns.push_back({"pareto", ColumnType::kBoolean, "", kLeft, {.yes = "yes", .no = ""}});
  t.columns.push_back({"not measured", ColumnType::kText, "", kLeft});
  int rank = 0;
  for (const Candidate& c : s.ranked) {
    std::vector<report::Value> row = {report::Integer(++rank), report::Text(c.name),
                                      report::Text(c.device), report::Real(c.total)};
    for (size_t g = 0; g < kGroups; ++g) {
      row.push_back(s.group_used[g] ? report::RealOrNull(c.groups[g]) : report::Null());
    }
    row.push_back(report::Boolean(c.pareto));
    row.push_back(report::Text(fmt::format("{}", fmt::join(c.missing, ", "))));
    t.Add(std::move(row));
  }
  return t;
}

report::Table FiguresTable(const Selection& s) {
  report::Table t;
  t.name = "figures";
  t.columns = {{"candidate", ColumnType::kText, "", kLeft},
               {"group", ColumnType::kText, "", kLeft},
               {"figure", ColumnType::kText, "", kLeft},
               {"better", ColumnType::kText, "", kLeft},
               FigureValue("value"),
               Score("scaled")};
  for (const Candidate& c : s.ranked) {
    for (const Scored& f : c.figures) {
      t.Add({report::Text(c.name), report::Text(GroupName(f.group)), report::Text(f.name),
             report::Text(f.higher_is_better ? "higher" : "lower"), report::Real(f.value),
             report::Real(f.scaled)});
      t.rows.back().unit = f.unit;
    }
  }
  return t;
}

report::Table VetoTable(const Selection& s) {
  report::Table t;
  t.name = "vetoed";
  t.columns = {{"candidate", ColumnType::kText, "", kLeft},
               {"device", ColumnType::kText, "", kLeft},
               {"constraint", ColumnType::kText, "", kLeft},
               {"figure", ColumnType::kText, "", kLeft},
               FigureValue("value"),
               {"by", ColumnType::kText, "", kLeft}};
  for (const Veto& v : s.vetoed) {
    t.Add({report::Text(v.candidate), report::Text(v.device), report::Text(v.constraint),
           report::Text(v.figure), report::RealOrNull(v.value), report::Text(v.by)});
    t.rows.back().unit = v.unit;
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
  const report::Table ranked = RankedTable(s);
  if (ranked.rows.empty()) {
    out << "No candidate meets every constraint.\n";
  } else {
    report::WriteMarkdownTable(ranked, out);
  }
  if (!s.vetoed.empty()) {
    out << "\n## Vetoed\n\n";
    report::WriteMarkdownTable(VetoTable(s), out);
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
  const report::Table figures = FiguresTable(s);
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
  for (const report::Table& t : {RankedTable(s), VetoTable(s), FiguresTable(s)}) {
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
