#include "pipette/reproduce/view.h"

#include <fmt/format.h>

#include "pipette/report/markdown.h"
#include "pipette/util/strings.h"

namespace pipette::reproduce {

using report::ColumnType;

namespace {

std::string KindName(FigureCheck::Kind k) {
  switch (k) {
    case FigureCheck::Kind::kQuality:
      return "bit-identical";
    case FigureCheck::Kind::kSpeed:
      return "median within noise";
    case FigureCheck::Kind::kOnce:
      return "single value within threshold";
  }
  return "?";
}

// true / false / null; Markdown: yes / NO / cannot say.
report::Value Outcome(FigureCheck::Outcome o) {
  switch (o) {
    case FigureCheck::Outcome::kYes:
      return report::Boolean(true);
    case FigureCheck::Outcome::kNo:
      return report::Boolean(false);
    case FigureCheck::Outcome::kCannotSay:
      return report::Null();
  }
  return report::Null();
}

}  // namespace

report::Table ReproduceTable(const Verdict& v) {
  report::Table t;
  t.name = "figures";
  const auto left = report::Align::kLeft, right = report::Align::kRight;
  const report::TextForm six{.real = "{:.6g}"};
  t.columns = {{"figure", ColumnType::kText, "", left},
               {"metric", ColumnType::kText, "", left},
               {"unit", ColumnType::kText, "", left},
               {"check", ColumnType::kText, "", left},
               {"original", ColumnType::kReal, "", right, six},
               {"now", ColumnType::kReal, "", right, six},
               {"ratio", ColumnType::kReal, "", right, six},
               {"reproduced",
                ColumnType::kBoolean,
                "",
                left,
                {.null = "cannot say", .yes = "yes", .no = "NO"}},
               {"why", ColumnType::kText, "", left}};
  for (const FigureCheck& f : v.figures) {
    t.Add({report::Text(f.label), report::Text(f.metric), report::Text(f.unit),
           report::Text(KindName(f.kind)), report::RealOrNull(f.original),
           report::RealOrNull(f.now), report::RealOrNull(f.ratio), Outcome(f.outcome),
           report::Text(f.why)});
  }
  return t;
}

void WriteReproduceMarkdown(const Verdict& v, const std::string& original, const std::string& again,
                            std::ostream& out) {
  out << fmt::format("Original: {}\n\nAgain: {}\n\n", MarkdownLine(original), MarkdownLine(again));
  const report::Table t = ReproduceTable(v);
  if (t.rows.empty()) {
    out << "No figure to check.\n";
  } else {
    report::WriteMarkdownTable(t, out);
  }
  if (!v.missing.empty()) out << "\nNot reproduced, missing now:\n";
  for (const std::string& m : v.missing) out << "- " << MarkdownLine(m) << "\n";
  out << "\nEnvironment differences:";
  if (v.environment.empty()) out << " none";
  out << "\n";
  for (const Difference& d : v.environment) {
    out << fmt::format("- {}: {} → {}\n", MarkdownLine(d.what), MarkdownLine(d.original),
                       MarkdownLine(d.now));
  }
  const size_t cannot_say = v.figures.size() - v.reproduced - v.not_reproduced;
  out << fmt::format("\n{} of {} figures reproduced{}{}.\n", v.reproduced,
                     v.figures.size() + v.missing.size(),
                     cannot_say ? fmt::format(", {} cannot say", cannot_say) : "",
                     v.all_reproduced() ? "" : ": the run did NOT reproduce");
}

nlohmann::ordered_json ReproduceJson(const Verdict& v, const std::string& original,
                                     const std::string& again) {
  const report::Table t = ReproduceTable(v);
  nlohmann::ordered_json j;
  j["schema"] = "pipette.reproduce";
  j["schema_version"] = kReproduceSchemaVersion;
  j["original"] = original;
  j["again"] = again;
  j["reproduced"] = v.all_reproduced();
  j["figures_reproduced"] = v.reproduced;
  j["figures_not_reproduced"] = v.not_reproduced + v.missing.size();
  j["figures"] = nlohmann::ordered_json::array();
  for (const report::Row& row : t.rows) j["figures"].push_back(report::RowObject(t, row));
  j["missing"] = v.missing;
  j["environment"] = nlohmann::ordered_json::array();
  for (const Difference& d : v.environment) {
    j["environment"].push_back({{"what", d.what}, {"original", d.original}, {"now", d.now}});
  }
  return j;
}

}  // namespace pipette::reproduce
