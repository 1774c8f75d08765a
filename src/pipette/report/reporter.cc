#include "pipette/report/reporter.h"

#include <fmt/format.h>

#include "pipette/report/csv_reporter.h"
#include "pipette/report/json_reporter.h"
#include "pipette/report/markdown_reporter.h"
#include "pipette/util/strings.h"

namespace pipette::report {

std::vector<std::string> Formats() { return {"md", "csv", "json"}; }

Result<std::unique_ptr<Reporter>> MakeReporter(std::string_view format) {
  if (format == "md") return std::unique_ptr<Reporter>(new MarkdownReporter());
  if (format == "csv") return std::unique_ptr<Reporter>(new CsvReporter());
  if (format == "json") return std::unique_ptr<Reporter>(new JsonReporter());
  return InputError(fmt::format("unknown report format '{}'{} (formats: md, csv, json)", format,
                                DidYouMean(format, Formats())));
}

}  // namespace pipette::report
