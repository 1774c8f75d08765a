#include "pipette/config/yaml_helpers.h"

#include <charconv>
#include <filesystem>

namespace pipette::config {
namespace fs = std::filesystem;

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

Result<std::string> ResolveDataPath(const Where& w, const YAML::Node& node,
                                    const std::string& written, const std::string& what) {
  fs::path p(written);
  std::vector<fs::path> tried;
  if (p.is_absolute()) {
    tried.push_back(p);
  } else {
    tried.push_back(fs::path(w.path()).parent_path() / p);
    tried.push_back(fs::current_path() / p);
  }
  for (const fs::path& t : tried) {
    std::error_code ec;
    if (fs::is_regular_file(t, ec)) return fs::absolute(t).lexically_normal().string();
    if (fs::is_directory(t, ec)) {
      return w.At(node, fmt::format("'{}' is a directory, not a {}", written, what));
    }
  }
  std::string where;
  for (const fs::path& t : tried) where += fmt::format(" {}", t.lexically_normal().string());
  return w.At(node, fmt::format("{} not found: '{}' (looked at:{})", what, written, where));
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

}  // namespace pipette::config
