#include "pipette/config/yaml_helpers.h"

#include <charconv>

#include "pipette/util/utf8.h"

namespace pipette::config {

Result<std::string> Scalar(const Where& w, const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) return w.At(node, fmt::format("{} must be a single value", what));
  return node.Scalar();
}

Result<int64_t> Integer(const Where& w, const YAML::Node& node, const std::string& what, int64_t lo,
                        int64_t hi) {
  auto s = Scalar(w, node, what);
  if (!s) return s.error();
  int64_t v = 0;
  const std::string& t = *s;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) {
    return w.At(node, fmt::format("{} must be an integer, got '{}'", what, t));
  }
  if (v < lo || v > hi) {
    return w.At(node, fmt::format("{} must be between {} and {}, got {}", what, lo, hi, v));
  }
  return v;
}

Result<nlohmann::json> JsonScalar(const Where& w, const YAML::Node& node, const std::string& what) {
  if (!node.IsNull() && !node.IsScalar()) {
    return w.At(node,
                fmt::format("{} must be a single value (string, number, boolean or null)", what));
  }
  if (node.IsNull()) return nlohmann::json();
  const std::string& t = node.Scalar();
  if (node.Tag() == "!") return nlohmann::json(t);  // quoted: always a string
  if (t == "null" || t == "Null" || t == "NULL" || t == "~") return nlohmann::json();
  if (t == "true" || t == "True" || t == "TRUE") return nlohmann::json(true);
  if (t == "false" || t == "False" || t == "FALSE") return nlohmann::json(false);
  const nlohmann::json number = nlohmann::json::parse(t, nullptr, /*allow_exceptions=*/false);
  if (number.is_number()) return number;
  return nlohmann::json(t);
}

std::vector<YAML::Node> AsList(const YAML::Node& node) {
  std::vector<YAML::Node> out;
  if (node.IsSequence()) {
    for (const YAML::Node& n : node) out.push_back(n);
  } else {
    out.push_back(node);
  }
  return out;
}

Result<double> Number(const Where& w, const YAML::Node& node, const std::string& what, double lo,
                      double hi) {
  auto s = Scalar(w, node, what);
  if (!s) return s.error();
  double v = 0;
  const std::string& t = *s;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) {
    return w.At(node, fmt::format("{} must be a number, got '{}'", what, t));
  }
  if (!(v >= lo && v <= hi)) {
    return w.At(node, fmt::format("{} must be between {} and {}, got {}", what, lo, hi, t));
  }
  return v;
}

std::optional<YAML::Node> NotUtf8Scalar(const YAML::Node& node) {
  if (node.IsScalar()) {
    if (FirstInvalidUtf8(node.Scalar())) return node;
    return std::nullopt;
  }
  if (node.IsSequence()) {
    for (const auto& item : node) {
      if (auto bad = NotUtf8Scalar(item)) return bad;
    }
  } else if (node.IsMap()) {
    for (const auto& kv : node) {
      if (auto bad = NotUtf8Scalar(kv.first)) return bad;
      if (auto bad = NotUtf8Scalar(kv.second)) return bad;
    }
  }
  return std::nullopt;
}

}  // namespace pipette::config
