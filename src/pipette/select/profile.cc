#include "pipette/select/profile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "pipette/config/yaml_helpers.h"
#include "pipette/select/shipped_profiles.h"
#include "pipette/util/strings.h"
#include "pipette/util/utf8.h"

namespace pipette::select {
namespace {

using config::Where;

Result<Weights> ParseWeights(const Where& w, const YAML::Node& node) {
  auto m = config::YamlMapping::Read(
      w, node, "weights",
      "weights: expected a mapping of quality, efficiency, robustness, engineering to numbers");
  if (!m) return m.error();
  const std::vector<std::string> names = {"quality", "efficiency", "robustness", "engineering"};
  for (const std::string& key : m->keys()) {
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      return m->AtKey(key, fmt::format("unknown weight '{}' (weights: {}){}", key,
                                       fmt::join(names, ", "), DidYouMean(key, names)));
    }
  }
  FieldReader& f = m->fields();
  const auto weight = [&f](const char* name) { return f.Has(name) ? f.Number(name, 0, 1e6) : 0; };
  const Weights out{.quality = weight("quality"),
                    .efficiency = weight("efficiency"),
                    .robustness = weight("robustness"),
                    .engineering = weight("engineering")};
  if (auto st = m->status(); !st) return st.error();
  if (out.quality + out.efficiency + out.robustness + out.engineering <= 0) {
    return m->Here("weights: at least one weight must be above 0");
  }
  return out;
}

Result<Profile> ParseProfile(const Where& w, const std::string& name, const YAML::Node& node,
                             const metrics::FigureCatalogue* figures) {
  auto m = config::YamlMapping::Read(
      w, node, "profiles." + name,
      fmt::format("profile '{}': expected a mapping with about, constraints and weights", name));
  if (!m) return m.error();
  Profile p;
  p.name = name;
  p.source = w.path();
  const std::vector<std::string> keys = {"about", "constraints", "weights"};
  for (const std::string& key : m->keys()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return m->AtKey(key, fmt::format("unknown key '{}' in profile '{}' (keys: {}){}", key, name,
                                       fmt::join(keys, ", "), DidYouMean(key, keys)));
    }
  }
  FieldReader& f = m->fields();
  p.about = f.String("about", "");
  if (auto st = m->status(); !st) return st.error();
  if (m->Has("constraints")) {
    const YAML::Node list = m->Node("constraints");
    if (!list.IsSequence()) {
      return m->At("constraints", "constraints: expected a list such as [peak_rss <= 1.5GiB]");
    }
    const std::vector<std::string> texts = f.Strings("constraints");
    if (auto st = m->status(); !st) return st.error();
    for (size_t i = 0; i < texts.size(); ++i) {
      const YAML::Mark mark = list[i].Mark();
      // A quoted constraint starts one column after its quote.
      const int column = mark.column + 1 + (list[i].Tag() == "!" ? 1 : 0);
      auto c = ParseConstraint(texts[i], w.path(), mark.line + 1, column, figures);
      if (!c) return c.error();
      p.constraints.push_back(std::move(*c));
    }
  }
  if (auto st = m->status(); !st) return st.error();
  if (m->Has("weights")) {
    auto weights = ParseWeights(w, m->Node("weights"));
    if (!weights) return weights.error();
    p.weights = *weights;
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
  if (auto st = config::CheckTree(w, root[section]); !st) return st.error();
  return ParseProfileMap(w, root[section], &figures);
}

Result<Profiles> ParseProfileMap(const Where& w, const YAML::Node& node,
                                 const metrics::FigureCatalogue* figures) {
  Profiles out;
  auto m = config::YamlMapping::Read(w, node, "profiles",
                                     "expected a mapping of profile names to profiles");
  if (!m) return m.error();
  for (const std::string& name : m->keys()) {
    auto p = ParseProfile(w, name, m->Node(name), figures);
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
