#include "pipette/select/section.h"

#include "pipette/select/profile.h"

namespace pipette::select {

Result<std::any> ProfilesSection::Parse(const config::Where& w, const YAML::Node& node) const {
  auto profiles = ParseProfileMap(w, node, figures_);
  if (!profiles) return profiles.error();
  return std::any(std::move(*profiles));
}

// Never in the hash (Hashed() is false): nothing of it is written out.
nlohmann::json ProfilesSection::Canonical(const std::any&) const { return nlohmann::json(); }

Result<std::any> ProfilesSection::Resolve(const config::Where&, const std::any& written,
                                          const config::ResolveOptions&) const {
  return written;  // nothing on this machine to find: the profiles as written
}

nlohmann::json ProfilesSection::Resolved(const std::any&) const { return nlohmann::json(); }

}  // namespace pipette::select
