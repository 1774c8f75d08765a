// Reads typed fields out of one JSON object from outside Pipette: a protocol message (a request
// in a worker, a reply in the controller), an item of a JSONL dataset, or a mapping of the
// experiment's YAML read as JSON with the place and text of each field (config/yaml_helpers.h
// YamlMapping: "text mode", below). It remembers the first
// problem, which names its place (util/place.h) and the field: "pp request: field 'tokens' must
// be an array of token ids, got a string", "items.jsonl:3: missing required field 'choices'".
// Accessors never throw: after a problem they return a harmless value and ok() turns false;
// status() is the outcome. In a message a null field is an absent one (docs/protocol.md); in an
// object of a file, null is a value, of the wrong kind wherever a field is read.
//
// It is built into the protocol library too (CMakeLists.txt), which the cross-built workers link
// without fmt: it needs only nlohmann_json and util/place.h.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/util/place.h"
#include "pipette/util/result.h"

namespace pipette {

using TokenIds = std::vector<int32_t>;

// "a string", "an array", ... for messages about a JSON value of the wrong kind.
std::string JsonKind(const nlohmann::json& v);

// Where a field of an object read from a text file (the experiment's YAML) is written, and how.
struct FieldSpot {
  Place key{};    // its key (an item of a list: the item)
  Place value{};  // its value
  // A scalar as written (YAML: 512, '512', yes, abc); nullopt for a mapping, a list or nothing.
  std::optional<std::string> text{};
  std::vector<FieldSpot> items{};  // a list's items
};
using FieldSpots = std::map<std::string, FieldSpot>;

class FieldReader {
 public:
  static constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

  // A message's fields: `what` names it ("pp request", "hello response"). A problem is a
  // program's, not the user's input: exit code 1.
  FieldReader(const nlohmann::json& message, std::string what);
  // An object read from an input file (a dataset's line): a problem is bad input, exit code 2.
  FieldReader(const nlohmann::json& object, Place place, int exit_code = 2);
  // The reader keeps a reference to the object: a temporary would be gone before it is read
  // (found by the unit tests under AddressSanitizer, fuzz/README.md).
  FieldReader(nlohmann::json&& message, std::string what) = delete;
  FieldReader(nlohmann::json&& object, Place place, int exit_code = 2) = delete;
  // Text mode: an object read from a text file whose `spots` say where each field is written and
  // how. A problem names its field's place ("ex.yaml:4:12: field 'ppl.n_ctx' ..."), each field
  // named `prefix` + its key. A scalar is read from its text as written: an integer or a number
  // field takes '512' or 512, a string field takes 512 or true as the text it is; a string list
  // field takes one scalar as a list of one. `object` and `spots` must outlive the reader.
  FieldReader(const nlohmann::json& object, Place place, const FieldSpots& spots,
              std::string prefix);
  FieldReader(nlohmann::json&& object, Place place, const FieldSpots& spots,
              std::string prefix) = delete;
  FieldReader(const nlohmann::json& object, Place place, FieldSpots&& spots,
              std::string prefix) = delete;

  // Integer in [min, max]; the required form fails when the field is absent or null.
  int64_t Int(const char* name, int64_t min, int64_t max);
  int64_t Int(const char* name, int64_t min, int64_t max, int64_t fallback);
  std::optional<int64_t> OptionalInt(const char* name, int64_t min, int64_t max);
  bool Bool(const char* name);
  bool Bool(const char* name, bool fallback);
  std::string String(const char* name);
  std::string String(const char* name, const std::string& fallback);
  std::optional<std::string> OptionalString(const char* name);
  // A required string that is not empty.
  std::string Text(const char* name);
  // An array of strings.
  std::vector<std::string> Strings(const char* name);
  // An array of token ids (32-bit integers; the vocabulary range is the worker's to check).
  TokenIds Tokens(const char* name);
  TokenIds Tokens(const char* name, TokenIds fallback);
  std::vector<int64_t> Ints(const char* name);  // an array of integers (timestamps, ids)
  std::vector<int64_t> Ints(const char* name, int64_t min, int64_t max);  // each in [min, max]
  std::vector<double> Numbers(const char* name);
  double Number(const char* name);
  // A number in [min, max]; `unit`, if given, is said with the field ("percent of all CPUs").
  double Number(const char* name, double min, double max, const std::string& unit = "");
  // A JSON object: required, or `{}` when absent.
  nlohmann::json Object(const char* name);
  nlohmann::json OptionalObject(const char* name);
  // A JSON array (its items are the caller's to read, e.g. with Nested).
  nlohmann::json Array(const char* name);

  // A reader for an object held in this one (an item of an array field): its problems are this
  // reader's, its fields named `name.` + field. Fails when `value` is not an object.
  FieldReader Nested(const nlohmann::json& value, const std::string& name);
  FieldReader Nested(nlohmann::json&& value, const std::string& name) = delete;  // as above
  // Takes the first problem of another reader (a nested one, or one of a part read on its own).
  void Take(const FieldReader& other);

  // Whether the object gives the field (a null one only where null is a value: a file's).
  bool Has(const char* name) const;
  // Whether the field is a number (text mode: whether its text reads as one, '30' too).
  bool IsNumber(const char* name) const;
  // The first field the object has that is not in `known`, in the object's order.
  std::optional<std::string> FirstUnknown(const std::vector<std::string>& known) const;
  // Records a problem found beyond a field's type ("'from' leaves no position to score").
  void Fail(const std::string& problem);
  // The same at a field's place (text mode; elsewhere the reader's), or at its list's item `item`.
  void FailAt(const char* name, const std::string& problem);
  void FailAt(const char* name, size_t item, const std::string& problem);
  // Where a field's value is (its list's item `item`), or its key: the reader's own place where
  // the field is not known or the reader is not in text mode.
  Place PlaceOf(const char* name) const;
  Place PlaceOf(const char* name, size_t item) const;
  Place KeyPlaceOf(const char* name) const;
  bool ok() const { return !error_.has_value(); }
  // Success, or the first problem, at the reader's place.
  Status status() const;

 private:
  FieldReader(const nlohmann::json& object, Place place, int exit_code, bool null_is_absent,
              std::string prefix, const FieldSpots* spots = nullptr);
  const FieldSpot* SpotOf(const char* name) const;
  Place Located(const Place& at) const;  // `at` in the reader's file, naming what it reads
  std::string KindOf(const nlohmann::json& value) const;
  bool Absent(const nlohmann::json* value) const {
    return value == nullptr || (null_is_absent_ && value->is_null());
  }
  const nlohmann::json* Find(const char* name, bool required);
  std::string Name(const char* name) const { return "'" + prefix_ + name + "'"; }
  void FieldFail(const char* name, const std::string& problem);
  // `shown`: the field's text as written may be repeated (a wanted scalar: never an object's or
  // a list's, whose text could be anything pasted there).
  void WrongKind(const char* name, const std::string& wanted, const nlohmann::json& value,
                 bool shown = false);
  int64_t ReadInt(const nlohmann::json& value, const char* name, int64_t min, int64_t max);
  int64_t CheckRange(int64_t v, const char* name, int64_t min, int64_t max);
  bool ReadBool(const nlohmann::json& value, const char* name);
  std::string ReadString(const nlohmann::json& value, const char* name);
  // Text mode: a list field as its items, a scalar as a list of one (each with its spot).
  std::vector<std::pair<const nlohmann::json*, const FieldSpot*>> TextItems(
      const nlohmann::json& value, const char* name);
  TokenIds ReadTokens(const nlohmann::json& value, const char* name);
  template <class T>
  std::vector<T> ReadNumbers(const char* name);  // an array of integers or of numbers

  static const nlohmann::json& EmptyObject();

  const nlohmann::json& object_;
  Place place_;
  int exit_code_;
  bool null_is_absent_;
  std::string prefix_;
  const FieldSpots* spots_ = nullptr;  // text mode
  std::optional<Error> error_;
};

}  // namespace pipette
