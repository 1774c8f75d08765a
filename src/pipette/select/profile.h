// Selection profiles (docs/running.md "Choosing a configuration"): named sets of hard constraints
// and group weights, from a profiles file, an experiment's `select:` section, or those Pipette
// ships (profiles/select.yaml, compiled in). A pure parser over YAML text.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/config/yaml_helpers.h"
#include "pipette/select/constraint.h"
#include "pipette/util/result.h"

namespace pipette::select {

// What the total score weighs: the mean scaled figure of each group (select.h).
struct Weights {
  double quality = 0.4;      // task quality: mc acc, gen format_ok and task_acc, ppl, kld
  double efficiency = 0.4;   // speed and memory: tg, pp, ttft, peak RSS, energy per token
  double robustness = 0.1;   // noise (CV), sustained decay, failed or oom cells
  double engineering = 0.1;  // load time, file size, conversion steps
};

struct Profile {
  std::string name;
  std::string about;  // what it is for, in plain words
  std::vector<Constraint> constraints;
  Weights weights;
  std::string source;  // the file it came from ("(shipped)" for Pipette's own)
};

using Profiles = std::map<std::string, Profile>;

// A profiles file: `profiles:` mapping each name to {about, constraints: [...], weights: {...}}.
// `section`: the key holding the mapping ("profiles" in a profiles file, "select" in an experiment
// file); a file without it has no profiles. Unknown keys, malformed constraints and weights are
// errors with the file, line and column (exit 2).
// `figures`: what the constraints may name (workload::Figures() outside tests).
Result<Profiles> ParseProfiles(std::string_view yaml, const std::string& file,
                               const metrics::FigureCatalogue& figures,
                               const std::string& section = "profiles");

// The mapping of names to profiles itself (an experiment's `select:`, checked when the experiment
// is parsed); `figures` as ParseConstraint's.
Result<Profiles> ParseProfileMap(const config::Where& w, const YAML::Node& node,
                                 const metrics::FigureCatalogue* figures);

// The profiles Pipette ships (profiles/select.yaml).
Profiles ShippedProfiles(const metrics::FigureCatalogue& figures);

}  // namespace pipette::select
