#include "pipette/report/command_output.h"

#include <fmt/format.h>

#include "pipette/report/table_formats.h"

namespace pipette::report {

std::string CommandFormatList() { return "md, json, csv or jsonl"; }

Status CheckCommandFormat(const std::string& command, const std::string& format) {
  if (format == "md" || format == "json" || format == "csv" || format == "jsonl") return {};
  return InputError(fmt::format("--format {}: {} writes {}", format, command, CommandFormatList()));
}

void RenderCommandOutput(const std::string& format, const CommandOutput& output,
                         std::ostream& out) {
  if (format == "json") {
    out << output.json().dump(2) << "\n";
  } else if (format == "csv") {
    WriteCsvTable(output.table(), out);
  } else if (format == "jsonl") {
    WriteJsonlTable(output.table(), out);
  } else {
    output.markdown(out);
  }
}

}  // namespace pipette::report
