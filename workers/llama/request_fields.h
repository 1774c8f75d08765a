// Reads typed fields out of a request object, remembering the first problem for the reply.
// Accessors never throw: after a problem they return a harmless value and ok() turns false.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pipette::llama_worker {

class RequestFields {
 public:
  static constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

  explicit RequestFields(const nlohmann::json& request) : request_(request) {}

  // Integer in [min, max]; the required form fails when the field is absent or null.
  int64_t Int(const char* name, int64_t min, int64_t max);
  int64_t Int(const char* name, int64_t min, int64_t max, int64_t fallback);
  bool Bool(const char* name);
  bool Bool(const char* name, bool fallback);
  std::string String(const char* name);
  std::string String(const char* name, const std::string& fallback);
  // An array of token ids (32-bit integers; the vocabulary range is checked by the caller).
  std::vector<int32_t> Tokens(const char* name);
  std::vector<int32_t> Tokens(const char* name, std::vector<int32_t> fallback);

  bool Has(const char* name) const;
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  // The field's value, or nullptr when absent or null (a problem if `required`).
  const nlohmann::json* Find(const char* name, bool required);
  void Fail(std::string message);
  int64_t ReadInt(const nlohmann::json& value, const char* name, int64_t min, int64_t max);
  bool ReadBool(const nlohmann::json& value, const char* name);
  std::string ReadString(const nlohmann::json& value, const char* name);
  std::vector<int32_t> ReadTokens(const nlohmann::json& value, const char* name);

  const nlohmann::json& request_;
  std::string error_;
};

}  // namespace pipette::llama_worker
