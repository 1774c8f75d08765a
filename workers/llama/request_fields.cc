#include "request_fields.h"

#include <cstdint>
#include <utility>

namespace pipette::llama_worker {

using nlohmann::json;

bool RequestFields::Has(const char* name) const {
  auto it = request_.find(name);
  return it != request_.end() && !it->is_null();
}

const json* RequestFields::Find(const char* name, bool required) {
  auto it = request_.find(name);
  if (it == request_.end() || it->is_null()) {
    if (required) Fail(std::string("missing required field '") + name + "'");
    return nullptr;
  }
  return &*it;
}

void RequestFields::Fail(std::string message) {
  if (error_.empty()) error_ = std::move(message);
}

int64_t RequestFields::ReadInt(const json& value, const char* name, int64_t min, int64_t max) {
  int64_t v = 0;
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      Fail(std::string("field '") + name + "' is out of range");
      return min;
    }
    v = static_cast<int64_t>(u);
  } else if (value.is_number_integer()) {
    v = value.get<int64_t>();
  } else {
    Fail(std::string("field '") + name + "' must be an integer");
    return min;
  }
  if (v < min || v > max) {
    std::string range = "at least " + std::to_string(min);
    if (max != kNoMax) range = "between " + std::to_string(min) + " and " + std::to_string(max);
    Fail(std::string("field '") + name + "' must be " + range + ", got " + std::to_string(v));
    return min;
  }
  return v;
}

bool RequestFields::ReadBool(const json& value, const char* name) {
  if (!value.is_boolean()) {
    Fail(std::string("field '") + name + "' must be true or false");
    return false;
  }
  return value.get<bool>();
}

std::string RequestFields::ReadString(const json& value, const char* name) {
  if (!value.is_string()) {
    Fail(std::string("field '") + name + "' must be a string");
    return {};
  }
  return value.get<std::string>();
}

std::vector<int32_t> RequestFields::ReadTokens(const json& value, const char* name) {
  if (!value.is_array()) {
    Fail(std::string("field '") + name + "' must be an array of token ids");
    return {};
  }
  std::vector<int32_t> tokens;
  tokens.reserve(value.size());
  for (const json& item : value) {
    if (!item.is_number_integer()) {
      Fail(std::string("field '") + name + "' must hold only integer token ids");
      return {};
    }
    const bool fits = item.is_number_unsigned()
                          ? item.get<uint64_t>() <= uint64_t{INT32_MAX}
                          : item.get<int64_t>() >= INT32_MIN && item.get<int64_t>() <= INT32_MAX;
    if (!fits) {
      Fail(std::string("field '") + name + "' holds " + item.dump() +
           ", which is not a 32-bit token id");
      return {};
    }
    const int64_t v = item.get<int64_t>();
    tokens.push_back(static_cast<int32_t>(v));
  }
  return tokens;
}

int64_t RequestFields::Int(const char* name, int64_t min, int64_t max) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadInt(*value, name, min, max) : min;
}

int64_t RequestFields::Int(const char* name, int64_t min, int64_t max, int64_t fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadInt(*value, name, min, max) : fallback;
}

bool RequestFields::Bool(const char* name) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadBool(*value, name) : false;
}

bool RequestFields::Bool(const char* name, bool fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadBool(*value, name) : fallback;
}

std::string RequestFields::String(const char* name) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadString(*value, name) : std::string();
}

std::string RequestFields::String(const char* name, const std::string& fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadString(*value, name) : fallback;
}

std::vector<int32_t> RequestFields::Tokens(const char* name) {
  const json* value = Find(name, /*required=*/true);
  return value ? ReadTokens(*value, name) : std::vector<int32_t>();
}

std::vector<int32_t> RequestFields::Tokens(const char* name, std::vector<int32_t> fallback) {
  const json* value = Find(name, /*required=*/false);
  return value ? ReadTokens(*value, name) : fallback;
}

}  // namespace pipette::llama_worker
