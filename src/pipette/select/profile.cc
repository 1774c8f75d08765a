#include "pipette/select/profile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "pipette/config/yaml_helpers.h"
#include "pipette/select/shipped_profiles.h"
#include "pipette/util/strings.h"
#include "pipette/util/utf8.h"

namespace pipette::select {
namespace {

using config::Where;

Result<Weights> ParseWeights(const Where& w, const YAML::Node& node) {
  if (!node.IsMap()) {
    return w.At(node,
                "weights: expected a mapping of quality, efficiency, robustness, engineering to "
                "numbers");
  }
  Weights out{0, 0, 0, 0};
  const std::vector<std::string> names = {"quality", "efficiency", "robustness", "engineering"};
  config::KeySet seen;
  for (const auto& kv : node) {
    if (auto st = seen.Add(w, kv.first, "in weights "); !st) return st.error();
    const std::string key = kv.first.Scalar();
    double* slot = key == "quality"       ? &out.quality
                   : key == "efficiency"  ? &out.efficiency
                   : key == "robustness"  ? &out.robustness
                   : key == "engineering" ? &out.engineering
                                          : nullptr;
    if (!slot) {
      return w.At(kv.first, fmt::format("unknown weight '{}' (weights: {}){}", key,
                                        fmt::join(names, ", "), DidYouMean(key, names)));
    }
    auto v = config::Number(w, kv.second, "weights." + key, 0, 1e6);
    if (!v) return v.error();
    *slot = *v;
  }
  if (out.quality + out.efficiency + out.robustness + out.engineering <= 0) {
    return w.At(node, "weights: at least one weight must be above 0");
  }
  return out;
}

Result<Profile> ParseProfile(const Where& w, const std::string& name, const YAML::Node& node,
                             const metrics::FigureCatalogue* figures) {
  if (!node.IsMap()) {
    return w.At(node, fmt::format("profile '{}': expected a mapping with about, constraints and "
                                  "weights",
                                  name));
  }
  Profile p;
  p.name = name;
  p.source = w.path();
  const std::vector<std::string> keys = {"about", "constraints", "weights"};
  config::KeySet seen;
  for (const auto& kv : node) {
    if (auto st = seen.Add(w, kv.first, "in profile '" + name + "' "); !st) return st.error();
    const std::string key = kv.first.Scalar();
    if (key == "about") {
      auto s = config::Scalar(w, kv.second, "about");
      if (!s) return s.error();
      p.about = *s;
    } else if (key == "constraints") {
      if (!kv.second.IsSequence()) {
        return w.At(kv.second, "constraints: expected a list such as [peak_rss <= 1.5GiB]");
      }
      for (const YAML::Node& item : kv.second) {
        auto text = config::Scalar(w, item, "a constraint");
        if (!text) return text.error();
        const YAML::Mark m = item.Mark();
        // A quoted constraint starts one column after its quote.
        const int column = m.column + 1 + (item.Tag() == "!" ? 1 : 0);
        auto c = ParseConstraint(*text, w.path(), m.line + 1, column, figures);
        if (!c) return c.error();
        p.constraints.push_back(std::move(*c));
      }
    } else if (key == "weights") {
      auto weights = ParseWeights(w, kv.second);
      if (!weights) return weights.error();
      p.weights = *weights;
    } else {
      return w.At(kv.first, fmt::format("unknown key '{}' in profile '{}' (keys: {}){}", key, name,
                                        fmt::join(keys, ", "), DidYouMean(key, keys)));
    }
  }
  return p;
}

}  // namespace

Result<Profiles> ParseProfiles(std::string_view yaml, const std::string& file,
                               const metrics::FigureCatalogue& figures,
                               const std::string& section) {
  const Where w(file);
  // YAML is Unicode text; a profile's words reach select's JSON, which refuses any other bytes.
  if (auto bad = FirstInvalidUtf8(yaml)) return NotUtf8Error(file, yaml, *bad);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::ParserException& e) {
    return w.At(config::PlaceAt(e.mark.line, e.mark.column), "not YAML: " + e.msg);
  }
  if (!root.IsMap() || !root[section]) return Profiles{};
  if (auto bad = config::NotUtf8Scalar(root[section])) {
    return w.At(*bad, "this text is not UTF-8 once decoded");
  }
  return ParseProfileMap(w, root[section], &figures);
}

Result<Profiles> ParseProfileMap(const Where& w, const YAML::Node& node,
                                 const metrics::FigureCatalogue* figures) {
  Profiles out;
  if (!node.IsMap()) return w.At(node, "expected a mapping of profile names to profiles");
  config::KeySet seen;
  for (const auto& kv : node) {
    if (auto st = seen.Add(w, kv.first, "among the profiles "); !st) return st.error();
    auto p = ParseProfile(w, kv.first.Scalar(), kv.second, figures);
    if (!p) return p.error();
    out.emplace(p->name, std::move(*p));
  }
  return out;
}

Profiles ShippedProfiles(const metrics::FigureCatalogue& figures) {
  auto p = ParseProfiles(kShippedProfilesYaml, "profiles/select.yaml", figures);
  return p ? *p : Profiles{};  // profile_test checks that they parse
}

}  // namespace pipette::select
