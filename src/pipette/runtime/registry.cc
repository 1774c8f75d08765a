#include "pipette/runtime/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "pipette/runtime/llama.h"
#include "pipette/util/strings.h"

namespace pipette::runtime {

bool Runtime::Accepts(const std::string& format) const {
  return std::find(model_formats.begin(), model_formats.end(), format) != model_formats.end();
}

RuntimeRegistry::RuntimeRegistry(std::vector<Runtime> runtimes) : runtimes_(std::move(runtimes)) {
  std::vector<config::ParamDef> defs;
  for (const Runtime& r : runtimes_) {
    for (const config::ParamDef& d : r.params.defs()) {
      const bool known = std::any_of(defs.begin(), defs.end(),
                                     [&](const config::ParamDef& k) { return k.name == d.name; });
      if (!known) defs.push_back(d);
    }
  }
  params_ = config::ParamRegistry(std::move(defs));
}

std::vector<std::string> RuntimeRegistry::Names() const {
  std::vector<std::string> out;
  for (const Runtime& r : runtimes_) out.push_back(r.name);
  return out;
}

const Runtime* RuntimeRegistry::Find(std::string_view name) const {
  for (const Runtime& r : runtimes_) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

Result<const Runtime*> RuntimeRegistry::Lookup(std::string_view name) const {
  if (const Runtime* r = Find(name)) return r;
  const std::vector<std::string> names = Names();
  return InputError(fmt::format("unknown runtime '{}'{} (known: {})", name, DidYouMean(name, names),
                                fmt::join(names, ", ")));
}

const RuntimeRegistry& Registry() {
  static const RuntimeRegistry kRegistry({
      LlamaCpp(),
  });
  return kRegistry;
}

}  // namespace pipette::runtime
