#include "pipette/runtime/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

#include "pipette/runtime/llama.h"
#include "pipette/runtime/mnn.h"
#include "pipette/runtime/onnxruntime.h"
#include "pipette/runtime/openai.h"
#include "pipette/runtime/openvino.h"
#include "pipette/util/strings.h"

namespace pipette::runtime {

bool Runtime::Accepts(const std::string& format) const {
  return std::find(model_formats.begin(), model_formats.end(), format) != model_formats.end();
}

const std::string* FindParam(const CellParams& params, std::string_view name) {
  for (const auto& [k, v] : params) {
    if (k == name) return &v;
  }
  return nullptr;
}

std::string* FindParam(CellParams& params, std::string_view name) {
  for (auto& [k, v] : params) {
    if (k == name) return &v;
  }
  return nullptr;
}

std::optional<int64_t> IntParam(const CellParams& params, std::string_view name) {
  const std::string* text = FindParam(params, name);
  if (!text) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || ptr != text->data() + text->size()) return std::nullopt;
  return v;
}

RuntimeRegistry::RuntimeRegistry(std::vector<Runtime> runtimes, const ParamRegistry& own)
    : runtimes_(std::move(runtimes)) {
  std::vector<ParamDef> defs = own.defs();
  for (ParamDef& d : defs) d.runtimes.clear();
  for (const Runtime& r : runtimes_) {
    for (const ParamDef& d : r.params.defs()) {
      auto known = std::find_if(defs.begin(), defs.end(),
                                [&](const ParamDef& k) { return k.name == d.name; });
      if (known == defs.end()) {
        defs.push_back(d);
        defs.back().runtimes = {r.name};
      } else if (!known->runtimes.empty()) {
        known->runtimes.push_back(r.name);
        // Each runtime has its own default: the docs say every one's.
        if (!d.default_doc.empty() && d.default_doc != known->default_doc) {
          known->default_doc += fmt::format("; {}: {}", r.name, d.default_doc);
        }
      }
    }
  }
  std::stable_sort(defs.begin(), defs.end(),
                   [](const ParamDef& a, const ParamDef& b) { return a.order < b.order; });
  params_ = ParamRegistry(std::move(defs));
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
      OnnxRuntime(),
      OpenVino(),
      Mnn(),
      OpenAi(),
  });
  return kRegistry;
}

// Declared in params.h: the parameters of the runtimes Pipette ships.
ParamRegistry ParamRegistry::Default() { return Registry().Params(); }

}  // namespace pipette::runtime
