#include "pipette/config/validate.h"

#include <fmt/format.h>

#include <algorithm>

#include "pipette/util/strings.h"

namespace pipette::config {

Status ValidateAndOrder(Experiment* ex) {
  const std::string& path = ex->path;
  if (ex->divergence_reference) {
    auto it = std::find_if(ex->models.begin(), ex->models.end(),
                           [&](const ModelSpec& m) { return m.name == *ex->divergence_reference; });
    if (it == ex->models.end()) {
      return InputError(fmt::format("{}: divergence reference '{}' is not a model of this file",
                                    path, *ex->divergence_reference));
    }
    std::rotate(ex->models.begin(), it, it + 1);
  }
  if (ex->kld) {
    auto it = std::find_if(ex->models.begin(), ex->models.end(),
                           [&](const ModelSpec& m) { return m.name == ex->kld->reference; });
    if (it == ex->models.end()) {
      std::vector<std::string> names;
      for (const auto& m : ex->models) names.push_back(m.name);
      return InputError(fmt::format("{}:{}: kld reference '{}' is not a model of this file{}", path,
                                    ex->kld->line, ex->kld->reference,
                                    DidYouMean(ex->kld->reference, names)));
    }
    std::rotate(ex->models.begin(), it, it + 1);
  }
  return {};
}

}  // namespace pipette::config
