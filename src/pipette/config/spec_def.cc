#include "pipette/config/spec_def.h"

#include <algorithm>

#include "pipette/config/experiment.h"

namespace pipette::config {

const QualitySpec* QualitySpecs::Find(std::string_view name) const {
  for (const QualitySpec& s : specs_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

void QualitySpecs::Set(const SpecDef& def, std::any value) {
  const std::string name = def.Name();
  for (QualitySpec& s : specs_) {
    if (s.name == name) {
      s.def = &def;
      s.value = std::move(value);
      return;
    }
  }
  specs_.push_back({name, &def, std::move(value)});
}

void QualitySpecs::Erase(std::string_view name) {
  std::erase_if(specs_, [&](const QualitySpec& s) { return s.name == name; });
}

const SpecDef* SpecRegistry::Find(std::string_view name) const {
  for (const SpecDef* d : defs_) {
    if (d->Name() == name) return d;
  }
  return nullptr;
}

std::vector<std::string> SpecRegistry::Names() const {
  std::vector<std::string> names;
  for (const SpecDef* d : defs_) names.push_back(d->Name());
  return names;
}

SpecRegistry SpecRegistry::WithSections(std::vector<const SpecDef*> sections) const {
  SpecRegistry r = *this;
  r.sections_ = std::move(sections);
  return r;
}

SpecRegistry SpecRegistry::WithDevices(const device::DeviceKindRegistry* devices) const {
  SpecRegistry r = *this;
  r.devices_ = devices;
  return r;
}

const SpecDef* SpecRegistry::FindSection(std::string_view name) const {
  for (const SpecDef* d : sections_) {
    if (d->Name() == name) return d;
  }
  return nullptr;
}

const SpecRegistry& SpecsOf(const ResolveOptions& options) {
  static const SpecRegistry kNone;
  return options.specs ? *options.specs : kNone;
}

std::string ReferenceModel(const QualitySpecs& written) {
  for (const QualitySpec& q : written.all()) {
    if (auto ref = q.def->Reference(q.value)) return *ref;
  }
  return "";
}

int ModelIndex(const Experiment& ex, const std::string& name) {
  for (size_t i = 0; i < ex.models.size(); ++i) {
    if (ex.models[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

void MoveModelFirst(Experiment* ex, int index) {
  auto it = ex->models.begin() + index;
  std::rotate(ex->models.begin(), it, it + 1);
}

}  // namespace pipette::config
