// The spec of a quality workload (quality: ppl, kld, mc, gen, divergence) or of a section of the
// experiment file's top level (select:): how its entry is parsed, written in canonical form,
// resolved on this machine and checked against the whole experiment. Each owner's folder
// (src/pipette/workload/<name>/spec.h, src/pipette/select/section.h) owns its spec type and its
// SpecDef; config/ holds the specs by name without knowing their types, and is given the
// defs as a SpecRegistry (app::ExperimentSpecs() outside tests), the way it is given the
// parameters and the runtimes.
#pragma once

#include <yaml-cpp/yaml.h>

#include <any>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipette/config/quality_specs.h"
#include "pipette/config/resolve_options.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/util/result.h"

namespace pipette::device {
class DeviceKindRegistry;
}  // namespace pipette::device

namespace pipette::metrics {
class FigureCatalogue;
}  // namespace pipette::metrics

namespace pipette::config {

struct Experiment;

// What a part of the experiment file its owner defines is, for config/: a quality workload's
// entry under quality: (one per workload, in its folder) or a top-level section (select:,
// ready:, cooldown:).
class SpecDef {
 public:
  virtual ~SpecDef() = default;
  // Its key: under quality: for a workload ("ppl"), at the top level for a section ("select").
  virtual std::string Name() const = 0;
  // The entry as written, pure (no file is read); errors name file:line:column.
  virtual Result<std::any> Parse(const Where& w, const YAML::Node& node) const = 0;
  // Checks of the written entry against the other workloads of the file (`all`, as written).
  virtual Status CheckWritten(const Where& w, const QualitySpecs& all) const {
    (void)w, (void)all;
    return {};
  }
  // The model the workload compares the others with, as written; it runs first (validate).
  virtual std::optional<std::string> Reference(const std::any& written) const {
    (void)written;
    return std::nullopt;
  }
  // The canonical form of the written entry (config/canonical.h): the keys it gives, only those.
  virtual nlohmann::json Canonical(const std::any& written) const = 0;
  // Whether the entry is part of the config hash (its canonical form and its resolved form are
  // then stored): false for a section that changes no measurement (select:'s profiles).
  virtual bool Hashed() const { return true; }
  // The written entry resolved on this machine: defaults applied, files found and read.
  virtual Result<std::any> Resolve(const Where& w, const std::any& written,
                                   const ResolveOptions& options) const = 0;
  // Checks across the resolved experiment (a reference is one of its models); may reorder the
  // models (the reference first).
  virtual Status Validate(Experiment* ex) const {
    (void)ex;
    return {};
  }
  // The resolved spec as stored beside the hash (Experiment::Resolved()).
  virtual nlohmann::json Resolved(const std::any& resolved) const = 0;
};

// How a name under `tests:` is read: the speed workload's test kinds (workload::ParseTestName);
// an input error (without a place: the parser adds it) for a name no kind reads.
using TestGrammar = std::function<Result<TestSpec>(std::string_view name)>;

// What the parser is handed of the experiment file's grammar by the parts that own it: the
// quality workloads an experiment may name, in order, the top-level sections, the grammar of its
// tests, the device kinds and the figures its select: profiles may name (app::ExperimentSpecs()).
class SpecRegistry {
 public:
  SpecRegistry() = default;
  // `figures`: what an experiment's select: profiles may name (workload::Figures()); null only in
  // config's own tests, which leaves the constraints' figure names unchecked. `tests`: null only
  // in tests, where an experiment may then name no test.
  explicit SpecRegistry(std::vector<const SpecDef*> defs,
                        const metrics::FigureCatalogue* figures = nullptr,
                        TestGrammar grammar = nullptr)
      : defs_(std::move(defs)), figures_(figures), tests_(std::move(grammar)) {}
  const SpecDef* Find(std::string_view name) const;
  std::vector<std::string> Names() const;
  const std::vector<const SpecDef*>& defs() const { return defs_; }
  const metrics::FigureCatalogue* figures() const { return figures_; }
  const TestGrammar& tests() const { return tests_; }

  // This registry with `sections`: the experiment file's top-level sections its owners define
  // (one key each, its def's Name()), parsed, hashed, resolved and checked as the quality
  // entries are. A new top-level key is one def and one line where the registry is assembled.
  SpecRegistry WithSections(std::vector<const SpecDef*> sections) const;
  const SpecDef* FindSection(std::string_view name) const;
  const std::vector<const SpecDef*>& sections() const { return sections_; }

  // This registry with the device kinds `devices:` may name (device::DeviceKinds() from app/);
  // null: an experiment may name no device but `local`.
  SpecRegistry WithDevices(const device::DeviceKindRegistry* devices) const;
  const device::DeviceKindRegistry* devices() const { return devices_; }

 private:
  std::vector<const SpecDef*> defs_;
  std::vector<const SpecDef*> sections_;
  const metrics::FigureCatalogue* figures_ = nullptr;
  TestGrammar tests_ = nullptr;
  const device::DeviceKindRegistry* devices_ = nullptr;
};

// options.specs, or a registry of none where it is unset.
const SpecRegistry& SpecsOf(const ResolveOptions& options);

// The model the workloads of `written` that compare with one name (parsing checked they name the
// same), or "" when none does.
std::string ReferenceModel(const QualitySpecs& written);

// The models of `ex` by name, for a reference's check: the index of `name`, or -1.
int ModelIndex(const Experiment& ex, const std::string& name);
// Moves model `index` of `ex` first: its cells run before the others, which compare with it.
void MoveModelFirst(Experiment* ex, int index);

}  // namespace pipette::config
