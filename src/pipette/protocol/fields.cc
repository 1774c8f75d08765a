#include "pipette/protocol/fields.h"

#include <type_traits>
#include <utility>

namespace pipette::protocol {

using nlohmann::json;

FieldReader::FieldReader(const json& message, std::string what, std::string prefix)
    : message_(message.is_object() ? message : EmptyObject()),
      what_(std::move(what)),
      prefix_(std::move(prefix)) {
  if (!message.is_object()) {
    error_ = prefix_.empty() ? what_ + " is not a JSON object"
                             : what_ + ": field '" + prefix_.substr(0, prefix_.size() - 1) +
                                   "' must be an object";
  }
}

const json& FieldReader::EmptyObject() {
  static const json kEmpty = json::object();
  return kEmpty;
}

bool FieldReader::Has(const char* name) const {
  auto it = message_.find(name);
  return it != message_.end() && !it->is_null();
}

const json* FieldReader::Find(const char* name, bool required) {
  auto it = message_.find(name);
  if (it == message_.end() || it->is_null()) {
    if (required) Fail("missing required field " + Name(name));
    return nullptr;
  }
  return &*it;
}

void FieldReader::Fail(const std::string& message) {
  if (error_.empty()) error_ = what_ + ": " + message;
}

void FieldReader::FieldFail(const char* name, const std::string& problem) {
  Fail("field " + Name(name) + " " + problem);
}

void FieldReader::Take(const FieldReader& nested) {
  if (error_.empty() && !nested.ok()) error_ = nested.error_;
}

Status FieldReader::status() const {
  if (ok()) return {};
  return Error{error_};
}

int64_t FieldReader::ReadInt(const json& value, const char* name, int64_t min, int64_t max) {
  int64_t v = 0;
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      FieldFail(name, "is out of range");
      return min;
    }
    v = static_cast<int64_t>(u);
  } else if (value.is_number_integer()) {
    v = value.get<int64_t>();
  } else {
    FieldFail(name, "must be an integer");
    return min;
  }
  if (v < min || v > max) {
    std::string range = "at least " + std::to_string(min);
    if (max != kNoMax) range = "between " + std::to_string(min) + " and " + std::to_string(max);
    FieldFail(name, "must be " + range + ", got " + std::to_string(v));
    return min;
  }
  return v;
}

bool FieldReader::ReadBool(const json& value, const char* name) {
  if (!value.is_boolean()) {
    FieldFail(name, "must be true or false");
    return false;
  }
  return value.get<bool>();
}

std::string FieldReader::ReadString(const json& value, const char* name) {
  if (!value.is_string()) {
    FieldFail(name, "must be a string");
    return {};
  }
  return value.get<std::string>();
}

TokenIds FieldReader::ReadTokens(const json& value, const char* name) {
  if (!value.is_array()) {
    FieldFail(name, "must be an array of token ids");
    return {};
  }
  TokenIds tokens;
  tokens.reserve(value.size());
  for (const json& item : value) {
    if (!item.is_number_integer()) {
      FieldFail(name, "must hold only integer token ids");
      return {};
    }
    const bool fits = item.is_number_unsigned()
                          ? item.get<uint64_t>() <= uint64_t{INT32_MAX}
                          : item.get<int64_t>() >= INT32_MIN && item.get<int64_t>() <= INT32_MAX;
    if (!fits) {
      FieldFail(name, "holds " + item.dump() + ", which is not a 32-bit token id");
      return {};
    }
    tokens.push_back(static_cast<int32_t>(item.get<int64_t>()));
  }
  return tokens;
}

int64_t FieldReader::Int(const char* name, int64_t min, int64_t max) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadInt(*value, name, min, max) : min;
}

int64_t FieldReader::Int(const char* name, int64_t min, int64_t max, int64_t fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadInt(*value, name, min, max) : fallback;
}

std::optional<int64_t> FieldReader::OptionalInt(const char* name, int64_t min, int64_t max) {
  const json* value = Find(name, /*required=*/false);
  if (!value) return std::nullopt;
  return ReadInt(*value, name, min, max);
}

bool FieldReader::Bool(const char* name) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadBool(*value, name) : false;
}

bool FieldReader::Bool(const char* name, bool fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadBool(*value, name) : fallback;
}

std::string FieldReader::String(const char* name) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadString(*value, name) : std::string();
}

std::string FieldReader::String(const char* name, const std::string& fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadString(*value, name) : fallback;
}

std::optional<std::string> FieldReader::OptionalString(const char* name) {
  const json* value = Find(name, /*required=*/false);
  if (!value) return std::nullopt;
  return ReadString(*value, name);
}

TokenIds FieldReader::Tokens(const char* name) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadTokens(*value, name) : TokenIds();
}

TokenIds FieldReader::Tokens(const char* name, TokenIds fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadTokens(*value, name) : fallback;
}

template <class T>
std::vector<T> FieldReader::ReadNumbers(const char* name) {
  constexpr bool kIntegers = std::is_integral_v<T>;
  const json* value = Find(name, /*required=*/true);
  if (!value) return {};
  if (!value->is_array()) {
    FieldFail(name, kIntegers ? "must be an array of integers" : "must be an array of numbers");
    return {};
  }
  std::vector<T> out;
  out.reserve(value->size());
  for (const json& item : *value) {
    if (kIntegers ? !item.is_number_integer() : !item.is_number()) {
      FieldFail(name, kIntegers ? "must hold only integers" : "must hold only numbers");
      return {};
    }
    out.push_back(item.get<T>());
  }
  return out;
}

std::vector<int64_t> FieldReader::Ints(const char* name) { return ReadNumbers<int64_t>(name); }

std::vector<double> FieldReader::Numbers(const char* name) { return ReadNumbers<double>(name); }

double FieldReader::Number(const char* name) {
  const json* value = Find(name, /*required=*/true);
  if (!value) return 0;
  if (!value->is_number()) {
    FieldFail(name, "must be a number");
    return 0;
  }
  return value->get<double>();
}

json FieldReader::Object(const char* name) {
  const json* value = Find(name, /*required=*/true);
  if (!value) return json::object();
  if (!value->is_object()) {
    FieldFail(name, "must be an object");
    return json::object();
  }
  return *value;
}

json FieldReader::OptionalObject(const char* name) {
  if (!Has(name)) return json::object();
  return Object(name);
}

json FieldReader::Array(const char* name) {
  const json* value = Find(name, /*required=*/true);
  if (!value) return json::array();
  if (!value->is_array()) {
    FieldFail(name, "must be an array");
    return json::array();
  }
  return *value;
}

FieldReader FieldReader::Nested(const json& value, const std::string& name) {
  return FieldReader(value, what_, prefix_ + name + ".");
}

}  // namespace pipette::protocol
