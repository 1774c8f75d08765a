// The quality workloads of an experiment (quality: ppl, kld, mc, gen, divergence) with their
// specs, as written or as resolved, held without their types: each workload's folder owns its
// spec type and reads it back (config/spec_def.h says how a spec is parsed and resolved).
#pragma once

#include <any>
#include <string>
#include <string_view>
#include <vector>

namespace pipette::config {

class SpecDef;

// One workload's spec: as written (parse) or as resolved (resolve), of the def's own type.
struct QualitySpec {
  std::string name;  // the def's Name()
  const SpecDef* def = nullptr;
  std::any value;
};

// Each workload at most once, in the order set (parse and resolve: the registry's).
class QualitySpecs {
 public:
  // The spec of workload `name`, when there is one and it is a T; else nullptr.
  template <class T>
  const T* Get(std::string_view name) const {
    const QualitySpec* s = Find(name);
    return s ? std::any_cast<T>(&s->value) : nullptr;
  }
  template <class T>
  T* Mutable(std::string_view name) {
    for (QualitySpec& s : specs_) {
      if (s.name == name) return std::any_cast<T>(&s.value);
    }
    return nullptr;
  }
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  bool empty() const { return specs_.empty(); }
  const std::vector<QualitySpec>& all() const { return specs_; }
  // Sets the spec of `def`'s workload, replacing one there.
  void Set(const SpecDef& def, std::any value);
  void Erase(std::string_view name);

 private:
  const QualitySpec* Find(std::string_view name) const;
  std::vector<QualitySpec> specs_;
};

}  // namespace pipette::config
