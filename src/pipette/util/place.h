// Where a thing read from outside is: a place in an input file (the experiment's YAML, a line of a
// JSONL dataset) or in a message (a protocol request or reply). It is the one location type of
// the one field reader (util/field_reader.h, which config/yaml_helpers.h's YamlMapping feeds with
// the experiment's YAML): each problem it finds is made here, so it reads the same everywhere and
// keeps its place as the error's context (util/result.h).
#pragma once

#include <string>
#include <utility>

#include "pipette/util/result.h"

namespace pipette {

struct Place {
  std::string file{};  // an input file; "" for a message
  int line = 0;        // 1-based; 0: not known (the whole file)
  int column = 0;      // 1-based; 0: not known
  std::string what{};  // what is read there, if it needs naming: "pp request", "checker 2 (regex)"

  // "file:line:column: what: problem" (util/result.h Describe), the place kept as context.
  Error Fail(const std::string& problem, int exit_code = 2) const {
    return ErrorAt({.file = file, .line = line, .column = column},
                   what.empty() ? problem : what + ": " + problem, exit_code);
  }
  // The same place, naming the thing read there.
  Place Naming(std::string thing) const {
    Place p = *this;
    p.what = std::move(thing);
    return p;
  }
  bool Known() const { return line > 0; }
};

}  // namespace pipette
