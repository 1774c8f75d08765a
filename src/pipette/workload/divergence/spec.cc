#include "pipette/workload/divergence/spec.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace pipette::workload {
namespace {

using config::Where;

class DivergenceDef : public config::SpecDef {
 public:
  std::string Name() const override { return "divergence"; }

  Result<std::any> Parse(const Where& w, const YAML::Node& node) const override {
    static const std::string kShape =
        "divergence: takes exactly 'reference:' (a model of this file)";
    auto m = config::YamlMapping::Read(w, node, "divergence", kShape);
    if (!m) return m.error();
    if (m->keys() != std::vector<std::string>{"reference"}) return m->Here(kShape);
    const std::string reference = m->fields().String("reference");
    if (auto st = m->status(); !st) return st.error();
    return std::any(DivergenceSpec{reference});
  }

  Status CheckWritten(const Where& w, const config::QualitySpecs& all) const override {
    if (!all.Has("gen")) {
      return w.File("divergence compares the outputs of gen: add 'gen:' to quality");
    }
    return {};
  }

  std::optional<std::string> Reference(const std::any& written) const override {
    return std::any_cast<const DivergenceSpec&>(written).reference;
  }

  nlohmann::json Canonical(const std::any& written) const override {
    return std::any_cast<const DivergenceSpec&>(written).reference;
  }

  Result<std::any> Resolve(const Where&, const std::any& written,
                           const config::ResolveOptions&) const override {
    return written;
  }

  // The reference is a model of the file; it runs first.
  Status Validate(config::Experiment* ex) const override {
    const DivergenceSpec* spec = DivergenceSpecOf(*ex);
    if (!spec) return {};
    const int i = config::ModelIndex(*ex, spec->reference);
    if (i < 0) {
      return InputError(fmt::format("{}: divergence reference '{}' is not a model of this file",
                                    ex->path, spec->reference));
    }
    config::MoveModelFirst(ex, i);
    return {};
  }

  nlohmann::json Resolved(const std::any& resolved) const override {
    return std::any_cast<const DivergenceSpec&>(resolved).reference;
  }
};

}  // namespace

const config::SpecDef& DivergenceSpecDef() {
  static const DivergenceDef kDef;
  return kDef;
}

const DivergenceSpec* DivergenceSpecOf(const config::Experiment& ex) {
  return ex.quality.Get<DivergenceSpec>("divergence");
}

void SetDivergenceSpec(config::Experiment* ex, DivergenceSpec spec) {
  ex->quality.Set(DivergenceSpecDef(), std::move(spec));
}

}  // namespace pipette::workload
