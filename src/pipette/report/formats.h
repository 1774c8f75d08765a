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

// Formats by name, in the order --help lists them.
class FormatRegistry {
 public:
  explicit FormatRegistry(std::vector<Format> formats) : formats_(std::move(formats)) {}
  const std::vector<Format>& formats() const { return formats_; }
  std::vector<Format>::const_iterator begin() const { return formats_.begin(); }
  std::vector<Format>::const_iterator end() const { return formats_.end(); }
  std::vector<std::string> Names() const;
  // "md, csv, json, jsonl, sql" (for help texts and errors); with `separator` "|": "md|csv|...".
  std::string List(std::string_view separator = ", ") const;
  // The format of that name; unknown: an input error naming it, the nearest name and every name.
  Result<const Format*> Find(std::string_view name) const;

 private:
  std::vector<Format> formats_;
};

// The formats Pipette ships (app/ and the CLI; below app/ a format is a parameter).
const FormatRegistry& Formats();
// Formats()'s.
std::vector<std::string> FormatNames();
std::string FormatList(std::string_view separator = ", ");
Result<const Format*> FindFormat(std::string_view name);

}  // namespace pipette::report
