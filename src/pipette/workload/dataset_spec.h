// What the dataset workloads (mc, gen) write alike: dataset: and limit: (gen also takes
// template_options:), parsed and in canonical form (config/quality_spec.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

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

}  // namespace pipette::workload
