// Small helpers for reading experiment YAML with errors that name file:line:column.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/config/written.h"
#include "pipette/util/field_reader.h"
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
  // Where a node is, in this file.
  Place PlaceOf(const YAML::Node& node) const {
    Place at = PosOf(node);
    at.file = path_;
    return at;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline int Line(const YAML::Node& node) { return node.Mark().line + 1; }

// One mapping of the experiment file, read once as the fields of a FieldReader in text mode
// (util/field_reader.h): the mapping as the JSON it spells (a quoted scalar is a string, a plain
// one is null, a boolean, a number or a string as YAML's core schema says; mappings and lists are
// objects and arrays), with where each key and value is written and each scalar's text. A key is
// a plain name and is given once, in this mapping and in every one inside it. A problem with a
// field names it by its path ("field 'ppl.n_ctx' must be between 4 and 1048576, got 2") at its
// value's place.
class YamlMapping {
 public:
  // `node` must be a mapping (else `shape` is the problem, at the node); `path` names it in the
  // fields' names ("ppl", "models[0]"; "" for the file's top level).
  static Result<YamlMapping> Read(const Where& w, const YAML::Node& node, const std::string& path,
                                  const std::string& shape);
  // A lone value (a list's item, a section written as a scalar), read as the one field `name`.
  static Result<YamlMapping> Lone(const Where& w, const YAML::Node& node, const std::string& name);

  FieldReader& fields() { return *reader_; }
  // The mapping as JSON, by YAML's types (a body sent as written, template options).
  const nlohmann::json& json() const { return data_->object; }
  // The keys in the file's order.
  const std::vector<std::string>& keys() const { return data_->keys; }
  bool Has(const std::string& key) const { return data_->nodes.contains(key); }
  // A value as written, to walk into (a list of mappings, a mapping read on its own); a null
  // node where the key is not given.
  YAML::Node Node(const std::string& key) const;
  Place PlaceOf(const std::string& key) const { return reader_->PlaceOf(key.c_str()); }
  Place KeyPlaceOf(const std::string& key) const { return reader_->KeyPlaceOf(key.c_str()); }
  // The mapping's own place.
  const Place& place() const { return data_->place; }
  // A problem with a key's value, or with the key itself.
  Error At(const std::string& key, const std::string& problem) const {
    return PlaceOf(key).Fail(problem);
  }
  Error AtKey(const std::string& key, const std::string& problem) const {
    return KeyPlaceOf(key).Fail(problem);
  }
  Error Here(const std::string& problem) const { return data_->place.Fail(problem); }
  // The first key that is not `known`: "unknown key 'x' in ppl (did you mean ...?)", at the key;
  // `in` names the mapping (" in ppl", " in a model"; "" at the top).
  Status OnlyKeys(const std::vector<std::string>& known, const std::string& in) const;
  // The fields' first problem.
  Status status() const { return reader_->status(); }

 private:
  struct Data {
    nlohmann::json object = nlohmann::json::object();
    FieldSpots spots{};
    std::map<std::string, YAML::Node> nodes{};
    std::vector<std::string> keys{};
    Place place{};
  };
  YamlMapping(std::unique_ptr<Data> data, const std::string& path);

  std::unique_ptr<Data> data_;  // held apart: the reader keeps references to it
  std::unique_ptr<FieldReader> reader_;
};

// A scalar or a list of scalars, as a list of nodes.
std::vector<YAML::Node> AsList(const YAML::Node& node);
// What every document read as fields must be, checked once before it is read: no scalar (key or
// value) whose text is not UTF-8 (an escape such as "\ud800", a lone surrogate, decodes to bytes
// the store's JSON refuses); nested at most 64 levels deep, as an alias that holds itself would
// nest without end; at most 10,000 values once its aliases are expanded (a "billion laughs").
Status CheckTree(const Where& w, const YAML::Node& root);

}  // namespace pipette::config
