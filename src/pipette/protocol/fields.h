// Reads typed fields out of one protocol message (a request in a worker, a response in the
// controller), remembering the first problem. Every problem names the message and the field:
// "pp request: field 'tokens' must be an array of token ids". Accessors never throw: after a
// problem they return a harmless value and ok() turns false; status() is the outcome.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::protocol {

using TokenIds = std::vector<int32_t>;

class FieldReader {
 public:
  static constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

  // `what` names the message ("pp request", "hello response"); `prefix` is put before every
  // field name, for an object inside another ("messages[2].").
  FieldReader(const nlohmann::json& message, std::string what, std::string prefix = "");
  // The reader keeps a reference to the message: a temporary would be gone before it is read
  // (found by the unit tests under AddressSanitizer, fuzz/README.md).
  FieldReader(nlohmann::json&& message, std::string what, std::string prefix = "") = delete;

  // Integer in [min, max]; the required form fails when the field is absent or null.
  int64_t Int(const char* name, int64_t min, int64_t max);
  int64_t Int(const char* name, int64_t min, int64_t max, int64_t fallback);
  std::optional<int64_t> OptionalInt(const char* name, int64_t min, int64_t max);
  bool Bool(const char* name);
  bool Bool(const char* name, bool fallback);
  std::string String(const char* name);
  std::string String(const char* name, const std::string& fallback);
  std::optional<std::string> OptionalString(const char* name);
  // An array of token ids (32-bit integers; the vocabulary range is the worker's to check).
  TokenIds Tokens(const char* name);
  TokenIds Tokens(const char* name, TokenIds fallback);
  std::vector<int64_t> Ints(const char* name);  // an array of integers (timestamps, ids)
  std::vector<double> Numbers(const char* name);
  double Number(const char* name);
  // A JSON object: required, or `{}` when absent.
  nlohmann::json Object(const char* name);
  nlohmann::json OptionalObject(const char* name);
  // A JSON array (its items are the caller's to read, e.g. with Nested).
  nlohmann::json Array(const char* name);

  // A reader for an object held in this message (an item of an array field): its problems are
  // this reader's, its fields named `name.` + field. Fails when `value` is not an object.
  FieldReader Nested(const nlohmann::json& value, const std::string& name);
  FieldReader Nested(nlohmann::json&& value, const std::string& name) = delete;  // as above
  // Takes the first problem of a nested reader.
  void Take(const FieldReader& nested);

  bool Has(const char* name) const;
  // Records a problem found beyond a field's type ("'from' leaves no position to score").
  void Fail(const std::string& message);
  bool ok() const { return error_.empty(); }
  // Success, or the first problem ("pp request: field 'tokens' ...").
  Status status() const;

 private:
  const nlohmann::json* Find(const char* name, bool required);
  std::string Name(const char* name) const { return "'" + prefix_ + name + "'"; }
  void FieldFail(const char* name, const std::string& problem);
  int64_t ReadInt(const nlohmann::json& value, const char* name, int64_t min, int64_t max);
  bool ReadBool(const nlohmann::json& value, const char* name);
  std::string ReadString(const nlohmann::json& value, const char* name);
  TokenIds ReadTokens(const nlohmann::json& value, const char* name);
  template <class T>
  std::vector<T> ReadNumbers(const char* name);  // an array of integers or of numbers

  static const nlohmann::json& EmptyObject();

  const nlohmann::json& message_;
  std::string what_;
  std::string prefix_;
  std::string error_;
};

}  // namespace pipette::protocol
