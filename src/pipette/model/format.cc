#include "pipette/model/format.h"

#include <fmt/format.h>

#include <algorithm>

#include "pipette/util/strings.h"

namespace pipette::model {

ModelFormats::ModelFormats(std::vector<ModelFormat> formats) : formats_(std::move(formats)) {}

const ModelFormat* ModelFormats::Find(std::string_view name) const {
  for (const ModelFormat& f : formats_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const ModelFormat* ModelFormats::Of(const std::string& path) const {
  for (const ModelFormat& f : formats_) {
    if (f.recognises && f.recognises(path)) return &f;
  }
  return nullptr;
}

bool ModelFormats::NamesAPath(std::string_view ref) const {
  if (ref.find('/') != std::string_view::npos) return true;
  return std::any_of(formats_.begin(), formats_.end(), [&](const ModelFormat& f) {
    return std::any_of(f.extensions.begin(), f.extensions.end(),
                       [&](const std::string& e) { return ref.ends_with(e); });
  });
}

std::string ModelFormats::Abouts(const std::vector<std::string>& more) const {
  std::vector<std::string> all;
  for (const ModelFormat& f : formats_) all.push_back(f.about);
  all.insert(all.end(), more.begin(), more.end());
  return OneOf(all);
}

Result<ModelFacts> ModelFormats::Measure(const std::string& path) const {
  const ModelFormat* f = Of(path);
  if (!f)
    return InputError(
        fmt::format("{}: not a model in a format Pipette reads ({})", path, Abouts()));
  auto facts = f->measure(path);
  if (!facts) return facts.error();
  facts->info["format"] = f->name;
  return facts;
}

}  // namespace pipette::model
