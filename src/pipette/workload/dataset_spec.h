// What the dataset workloads (mc, gen) write alike: dataset: and limit: (gen also takes
// template_options:), parsed and in canonical form (config/spec_def.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "pipette/config/spec_def.h"
#include "pipette/config/written.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/util/result.h"

namespace pipette::workload {

// mc: and gen: as written.
struct WrittenDataset {
  config::WrittenFile dataset{};
  std::optional<int> limit{};
  // Variables for the chat template (llama-server's chat_template_kwargs): name -> JSON scalar.
  std::optional<nlohmann::json> template_options{};
  int line = 0;
};

// dataset: and limit: of `workload`, and template_options: when `with_template_options`.
Result<WrittenDataset> ParseDataset(const config::Where& w, const YAML::Node& node,
                                    const std::string& workload, bool with_template_options);

// The keys written, only those.
nlohmann::json CanonicalDataset(const WrittenDataset& d);

// The def of a dataset workload as far as the two share it: its name, parsing (WrittenDataset)
// and canonical form; each resolves its own dataset.
class DatasetSpecDef : public config::SpecDef {
 public:
  DatasetSpecDef(std::string name, bool with_template_options)
      : name_(std::move(name)), with_template_options_(with_template_options) {}
  std::string Name() const override { return name_; }
  Result<std::any> Parse(const config::Where& w, const YAML::Node& node) const override;
  nlohmann::json Canonical(const std::any& written) const override;

 private:
  std::string name_;
  bool with_template_options_;
};

}  // namespace pipette::workload
