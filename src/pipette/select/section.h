// The experiment file's `select:` section (docs/running.md "Choosing a configuration"): profiles
// for `pipette select`, checked when the experiment is parsed (a constraint naming a figure no
// workload makes is refused there), read back from the stored experiment text by `pipette
// select`. They change no measurement: the config hash leaves them out. Registered as a
// top-level section of the experiment file (config::SpecRegistry::WithSections, in app/).
#pragma once

#include "pipette/config/spec_def.h"
#include "pipette/metrics/figures.h"

namespace pipette::select {

class ProfilesSection : public config::SpecDef {
 public:
  // `figures`: what the constraints may name (workload::Figures() from app/); null: unchecked.
  explicit ProfilesSection(const metrics::FigureCatalogue* figures) : figures_(figures) {}
  std::string Name() const override { return "select"; }
  Result<std::any> Parse(const config::Where& w, const YAML::Node& node) const override;
  nlohmann::json Canonical(const std::any& written) const override;
  bool Hashed() const override { return false; }
  Result<std::any> Resolve(const config::Where& w, const std::any& written,
                           const config::ResolveOptions& options) const override;
  nlohmann::json Resolved(const std::any& resolved) const override;

 private:
  const metrics::FigureCatalogue* figures_ = nullptr;
};

}  // namespace pipette::select
