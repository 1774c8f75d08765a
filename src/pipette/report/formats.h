// The output formats of `pipette report --format NAME` (and of the run's --export-* files): a
// registry of name -> renderer. A renderer only formats the tables of a Report (document.h).
// Adding a format is one renderer file plus one line in Formats() (docs/architecture.md).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/report/document.h"
#include "pipette/util/result.h"

namespace pipette::report {

using Renderer = void (*)(const Report& report, std::ostream& out);

struct Format {
  std::string_view name;  // what --format takes
  std::string_view help;  // one line for --help and the docs
  Renderer render;
  ReportParts parts;  // what of the Report it renders (BuildReport builds only that)
};

// Every registered format, in the order --help lists them.
const std::vector<Format>& Formats();
std::vector<std::string> FormatNames();
// "md, csv, json, jsonl, sql" (for help texts and errors); with `separator` "|": "md|csv|...".
std::string FormatList(std::string_view separator = ", ");
// The format of that name; unknown: an input error naming it, the nearest name and every name.
Result<const Format*> FindFormat(std::string_view name);

}  // namespace pipette::report
