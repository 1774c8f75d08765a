// Small helpers for reading experiment YAML with errors that name file:line:column.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/config/written.h"
#include "pipette/util/place.h"
#include "pipette/util/result.h"

namespace pipette::config {

// A place in the file from yaml-cpp's 0-based line and column (-1: none, as for a node made in
// memory).
inline Place PlaceAt(int line, int column) {
  return {.line = line < 0 ? 0 : line + 1, .column = column < 0 ? 0 : column + 1};
}
// Where a node is in the file.
inline Place PosOf(const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  return PlaceAt(m.line, m.column);
}

// Builds bad-input errors of the form "file:line:col: message" at places of the experiment file,
// which keep the file, line and column as their context (util/place.h).
class Where {
 public:
  explicit Where(std::string path) : path_(std::move(path)) {}
  // At a place of the file (util/place.h); one whose line is not known names the file alone.
  Error At(const Place& pos, const std::string& message) const {
    Place at = pos;
    at.file = path_;
    if (!at.Known()) at.column = 0;  // no line, no column: the file
    return at.Fail(message);
  }
  Error At(const YAML::Node& node, const std::string& message) const {
    return At(PosOf(node), message);
  }
  // At a 1-based line whose column is not known: "file:line: message".
  Error AtLine(int line, const std::string& message) const {
    return Place{.file = path_, .line = line}.Fail(message);
  }
  Error File(const std::string& message) const { return Place{.file = path_}.Fail(message); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline int Line(const YAML::Node& node) { return node.Mark().line + 1; }

// YAML parsers keep the last of two equal keys; an experiment file must not say a thing twice.
class KeySet {
 public:
  Status Add(const Where& w, const YAML::Node& key, const std::string& where) {
    if (!key.IsScalar()) return w.At(key, fmt::format("a key {} must be a plain name", where));
    auto [it, fresh] = lines_.emplace(key.Scalar(), Line(key));
    if (!fresh) {
      return w.At(key, fmt::format("duplicate key '{}' {}(first at line {})", key.Scalar(), where,
                                   it->second));
    }
    return {};
  }

 private:
  std::map<std::string, int> lines_;
};

Result<std::string> Scalar(const Where& w, const YAML::Node& node, const std::string& what);
// An integer in [lo, hi].
Result<int64_t> Integer(const Where& w, const YAML::Node& node, const std::string& what, int64_t lo,
                        int64_t hi);
// A number (integer or decimal) in [lo, hi].
Result<double> Number(const Where& w, const YAML::Node& node, const std::string& what, double lo,
                      double hi);
// A scalar as the JSON scalar it spells: a quoted scalar is a string; a plain one is null (null,
// Null, NULL, ~ or nothing), a boolean (true/True/TRUE, false/False/FALSE), a JSON number, or
// else a string. A mapping or a list is an error.
Result<nlohmann::json> JsonScalar(const Where& w, const YAML::Node& node, const std::string& what);
// A scalar or a list of scalars, as a list of nodes.
std::vector<YAML::Node> AsList(const YAML::Node& node);
// The first scalar (key or value) whose text is not UTF-8: an escape such as "\ud800" (a lone
// surrogate) decodes to bytes the store's JSON refuses. nullopt if there is none.
std::optional<YAML::Node> NotUtf8Scalar(const YAML::Node& node);

}  // namespace pipette::config
