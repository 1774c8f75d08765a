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

// yes / NO / cannot say; JSON: true / false / null.
report::Value Outcome(FigureCheck::Outcome o, bool for_text) {
  switch (o) {
    case FigureCheck::Outcome::kYes:
      return for_text ? report::Text("yes") : report::Boolean(true);
    case FigureCheck::Outcome::kNo:
      return for_text ? report::Text("NO") : report::Boolean(false);
    case FigureCheck::Outcome::kCannotSay:
      return for_text ? report::Text("cannot say") : report::Null();
  }
  return report::Null();
}

}  // namespace

report::Table ReproduceTable(const Verdict& v, bool for_text) {
  report::Table t;
  t.name = "figures";
  const ColumnType real = for_text ? ColumnType::kText : ColumnType::kReal;
  const auto left = report::Align::kLeft, right = report::Align::kRight;
  t.columns = {{"figure", ColumnType::kText, "", left},
               {"metric", ColumnType::kText, "", left},
               {"unit", ColumnType::kText, "", left},
               {"check", ColumnType::kText, "", left},
               {"original", real, "", right},
               {"now", real, "", right},
               {"ratio", real, "", right},
               {"reproduced", for_text ? ColumnType::kText : ColumnType::kBoolean, "", left},
               {"why", ColumnType::kText, "", left}};
  auto number = [&](std::optional<double> x) {
    if (!x) return report::Null();
    return for_text ? report::Text(fmt::format("{:.6g}", *x)) : report::Real(*x);
  };
  for (const FigureCheck& f : v.figures) {
    t.Add({report::Text(f.label), report::Text(f.metric), report::Text(f.unit),
           report::Text(KindName(f.kind)), number(f.original), number(f.now), number(f.ratio),
           Outcome(f.outcome, for_text), report::Text(f.why)});
  }
  return t;
}

void WriteReproduceMarkdown(const Verdict& v, const std::string& original, const std::string& again,
                            std::ostream& out) {
  out << fmt::format("Original: {}\n\nAgain: {}\n\n", MarkdownLine(original), MarkdownLine(again));
  const report::Table t = ReproduceTable(v, true);
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
  const report::Table t = ReproduceTable(v, false);
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
