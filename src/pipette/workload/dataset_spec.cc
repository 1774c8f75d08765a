#include "pipette/workload/dataset_spec.h"

#include <fmt/format.h>

#include <vector>

#include "pipette/config/canonical.h"
#include "pipette/util/strings.h"

namespace pipette::workload {
namespace {

// template_options: of gen: option names and their values as JSON scalars.
Result<nlohmann::json> ParseTemplateOptions(const config::Where& w, const YAML::Node& node) {
  if (!node.IsMap()) {
    return w.At(node,
                "gen.template_options takes a mapping of option names to values "
                "(e.g. {enable_thinking: false})");
  }
  nlohmann::json options = nlohmann::json::object();
  config::KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in gen.template_options "); !st) return st.error();
    const std::string name = kv.first.Scalar();
    auto value = config::JsonScalar(w, kv.second, "gen.template_options." + name);
    if (!value) return value.error();
    options[name] = *value;
  }
  return options;
}

}  // namespace

// dataset: and limit: of a dataset workload (mc, gen), and gen's template_options: (when
// `with_template_options`).
Result<WrittenDataset> ParseDataset(const config::Where& w, const YAML::Node& node,
                                    const std::string& workload, bool with_template_options) {
  WrittenDataset spec;
  spec.line = config::Line(node);
  spec.dataset.pos = config::PosOf(node);
  if (node.IsMap()) {
    config::KeySet keys;
    for (const auto& kv : node) {
      if (auto st = keys.Add(w, kv.first, "in " + workload + " "); !st) return st.error();
      const std::string key = kv.first.Scalar();
      if (key == "dataset") {
        auto s = config::Scalar(w, kv.second, workload + ".dataset");
        if (!s) return s.error();
        spec.dataset = {*s, config::PosOf(kv.second)};
      } else if (key == "limit") {
        auto i = config::Integer(w, kv.second, workload + ".limit", 0, 1 << 30);
        if (!i) return i.error();
        spec.limit = static_cast<int>(*i);
      } else if (key == "template_options" && with_template_options) {
        auto options = ParseTemplateOptions(w, kv.second);
        if (!options) return options.error();
        spec.template_options = std::move(*options);
      } else {
        std::vector<std::string> known = {"dataset", "limit"};
        if (with_template_options) known.push_back("template_options");
        return w.At(kv.first,
                    fmt::format("unknown key '{}' in {}{}", key, workload, DidYouMean(key, known)));
      }
    }
  } else if (!node.IsNull()) {
    return w.At(node, workload + (with_template_options
                                      ? ": takes a mapping (dataset:, limit:, template_options:) "
                                        "or nothing"
                                      : ": takes a mapping (dataset:, limit:) or nothing"));
  }
  return spec;
}

nlohmann::json CanonicalDataset(const WrittenDataset& d) {
  nlohmann::json j = nlohmann::json::object();
  config::PutWritten(j, "dataset", d.dataset.path);
  config::PutWritten(j, "limit", d.limit);
  config::PutWritten(j, "template_options", d.template_options);
  return j;
}

Result<std::any> DatasetSpecDef::Parse(const config::Where& w, const YAML::Node& node) const {
  auto d = ParseDataset(w, node, name_, with_template_options_);
  if (!d) return d.error();
  return std::any(std::move(*d));
}

nlohmann::json DatasetSpecDef::Canonical(const std::any& written) const {
  return CanonicalDataset(std::any_cast<const WrittenDataset&>(written));
}

}  // namespace pipette::workload
