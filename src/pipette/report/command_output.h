// What compare, select and reproduce write, in the format asked: md (their Markdown document),
// json (their JSON document), or their one table in csv or jsonl (report/table_formats.h). Each
// builds its tables once (report/table.h); this picks the renderer.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "pipette/report/table.h"
#include "pipette/util/result.h"

namespace pipette::report {

struct CommandOutput {
  std::function<void(std::ostream&)> markdown;
  std::function<nlohmann::ordered_json()> json;
  std::function<Table()> table;  // the table csv and jsonl write
};

// "md, json, csv or jsonl".
std::string CommandFormatList();
// Bad input naming the command and the formats it writes, for another `format`.
Status CheckCommandFormat(const std::string& command, const std::string& format);
// `output` in `format` (one CheckCommandFormat accepts).
void RenderCommandOutput(const std::string& format, const CommandOutput& output, std::ostream& out);

}  // namespace pipette::report
