// What compare, select, reproduce and predict write, in the format asked: md (their Markdown
// document), json (their JSON document), or their one table in csv or jsonl
// (report/table_formats.h) where the command has one. Each builds its tables once
// (report/table.h); this picks the renderer, from one table of the formats.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "pipette/report/table.h"
#include "pipette/util/result.h"

namespace pipette::report {

struct CommandOutput {
  std::function<void(std::ostream&)> markdown;
  std::function<nlohmann::ordered_json()> json;
  std::function<Table()> table;  // the table csv and jsonl write; null: a command without one
};

// A format a command's output is written in.
struct CommandFormat {
  std::string name;          // as --format names it
  bool needs_table = false;  // written from CommandOutput::table
  std::function<void(const CommandOutput&, std::ostream&)> render;
};
// md, json, csv, jsonl.
const std::vector<CommandFormat>& CommandFormats();

// "md, json, csv or jsonl"; without `tables`, those of a command without one table ("md or
// json").
std::string CommandFormatList(bool tables = true);
// Bad input naming the command and the formats it writes, for another `format`.
Status CheckCommandFormat(const std::string& command, const std::string& format,
                          bool tables = true);
// `output` in `format` (one CheckCommandFormat accepts).
void RenderCommandOutput(const std::string& format, const CommandOutput& output, std::ostream& out);

}  // namespace pipette::report
