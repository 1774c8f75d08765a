#include "pipette/util/json_read.h"

#include <cmath>
#include <limits>

namespace pipette::json_read {

using nlohmann::json;

std::optional<int64_t> AsInt(const json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return int64_t(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < -9.2e18 || d > 9.2e18) return std::nullopt;
    return int64_t(d);
  }
  return std::nullopt;
}

json Member(const json& j, const char* key) {
  auto it = j.find(key);  // a json that is not an object finds nothing
  return it == j.end() ? json() : *it;
}

const json& Ref(const json& j, const char* key) {
  static const json kNull;  // immutable: never written
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::optional<int64_t> Int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  return AsInt(*it);
}

std::optional<double> Number(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string String(const json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool Flag(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

std::vector<int64_t> Ints(const json& j) {
  std::vector<int64_t> out;
  if (!j.is_array()) return out;
  for (const json& v : j) {
    auto x = AsInt(v);
    if (!x) break;
    out.push_back(*x);
  }
  return out;
}

}  // namespace pipette::json_read
