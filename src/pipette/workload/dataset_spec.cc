#include "pipette/workload/dataset_spec.h"

#include <fmt/format.h>

#include <vector>

#include "pipette/config/canonical.h"
#include "pipette/util/strings.h"

namespace pipette::workload {
namespace {

// template_options: of gen: option names and their values as JSON scalars.
Result<nlohmann::json> ParseTemplateOptions(const config::Where& w, const YAML::Node& node) {
  auto m = config::YamlMapping::Read(w, node, "gen.template_options",
                                     "gen.template_options takes a mapping of option names to "
                                     "values (e.g. {enable_thinking: false})");
  if (!m) return m.error();
  for (const std::string& name : m->keys()) {  // the first in the file's order
    const nlohmann::json& value = m->json().at(name);
    if (value.is_object() || value.is_array()) {
      return m->At(name, fmt::format("field 'gen.template_options.{}' must be a single value "
                                     "(string, number, boolean or null)",
                                     name));
    }
  }
  return m->json();
}

}  // namespace

// dataset: and limit: of a dataset workload (mc, gen), and gen's template_options: (when
// `with_template_options`).
Result<WrittenDataset> ParseDataset(const config::Where& w, const YAML::Node& node,
                                    const std::string& workload, bool with_template_options) {
  WrittenDataset spec;
  spec.line = config::Line(node);
  spec.dataset.pos = config::PosOf(node);
  if (node.IsNull()) return spec;
  auto m = config::YamlMapping::Read(
      w, node, workload,
      workload + (with_template_options
                      ? ": takes a mapping (dataset:, limit:, template_options:) or nothing"
                      : ": takes a mapping (dataset:, limit:) or nothing"));
  if (!m) return m.error();
  std::vector<std::string> known = {"dataset", "limit"};
  if (with_template_options) known.push_back("template_options");
  if (auto st = m->OnlyKeys(known, " in " + workload); !st) return st.error();
  FieldReader& f = m->fields();
  if (f.Has("dataset")) spec.dataset = {f.String("dataset"), m->PlaceOf("dataset")};
  spec.limit = f.OptionalInt("limit", 0, 1 << 30);
  if (auto st = m->status(); !st) return st.error();
  if (m->Has("template_options")) {
    auto options = ParseTemplateOptions(w, m->Node("template_options"));
    if (!options) return options.error();
    spec.template_options = std::move(*options);
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
