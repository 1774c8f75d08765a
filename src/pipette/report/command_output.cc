#include "pipette/report/command_output.h"

#include <fmt/format.h>

#include "pipette/report/table_formats.h"
#include "pipette/util/strings.h"

namespace pipette::report {

const std::vector<CommandFormat>& CommandFormats() {
  static const std::vector<CommandFormat> kFormats = {
      {"md", false, [](const CommandOutput& o, std::ostream& out) { o.markdown(out); }},
      {"json", false,
       [](const CommandOutput& o, std::ostream& out) { out << o.json().dump(2) << "\n"; }},
      {"csv", true,
       [](const CommandOutput& o, std::ostream& out) { WriteCsvTable(o.table(), out); }},
      {"jsonl", true,
       [](const CommandOutput& o, std::ostream& out) { WriteJsonlTable(o.table(), out); }},
  };
  return kFormats;
}

std::string CommandFormatList(bool tables) {
  std::vector<std::string> names;
  for (const CommandFormat& f : CommandFormats()) {
    if (tables || !f.needs_table) names.push_back(f.name);
  }
  return OneOf(names);
}

Status CheckCommandFormat(const std::string& command, const std::string& format, bool tables) {
  for (const CommandFormat& f : CommandFormats()) {
    if (f.name == format && (tables || !f.needs_table)) return {};
  }
  return InputError(
      fmt::format("--format {}: {} writes {}", format, command, CommandFormatList(tables)));
}

void RenderCommandOutput(const std::string& format, const CommandOutput& output,
                         std::ostream& out) {
  for (const CommandFormat& f : CommandFormats()) {
    if (f.name == format) return f.render(output, out);
  }
  CommandFormats().front().render(output, out);  // md: what CheckCommandFormat accepts first
}

}  // namespace pipette::report
