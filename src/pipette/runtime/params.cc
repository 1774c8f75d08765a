#include "pipette/runtime/params.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "pipette/runtime/registry.h"
#include "pipette/util/strings.h"

namespace pipette::runtime {

const char* StageName(ParamScope scope) {
  switch (scope) {
    case ParamScope::kLoad:
      return "load";
    case ParamScope::kContext:
      return "context";
    case ParamScope::kTest:
      return "test";
  }
  return "?";
}

bool ParamDef::BelongsTo(std::string_view runtime) const {
  return runtimes.empty() || std::find(runtimes.begin(), runtimes.end(), runtime) != runtimes.end();
}

bool ParamDef::LeftToRuntime(const std::string* asked) const {
  return runtime_resolves && !unreported.empty() && (!asked || *asked == unreported);
}

ParamRegistry ParamRegistry::Of(const std::vector<std::string>& runtimes) const {
  std::vector<ParamDef> out;
  for (const ParamDef& d : defs_) {
    if (std::any_of(runtimes.begin(), runtimes.end(),
                    [&](const std::string& r) { return d.BelongsTo(r); })) {
      out.push_back(d);
    }
  }
  return ParamRegistry(std::move(out));
}

const ParamDef* ParamRegistry::Find(std::string_view name) const {
  for (const ParamDef& d : defs_) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::string ParamRegistry::Column(std::string_view name) const {
  const ParamDef* d = Find(name);
  return d && !d->column.empty() ? d->column : std::string(name);
}

namespace {

// A name as another tool may write it: "--ctx-size", "Threads" -> "ctx_size", "threads".
std::string Normalized(std::string_view name) {
  while (name.starts_with('-')) name.remove_prefix(1);
  std::string out(name);
  for (char& c : out) {
    c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

const ParamDef* ParamRegistry::FindAlias(std::string_view name) const {
  const std::string n = Normalized(name);
  for (const ParamDef& d : defs_) {
    if (d.name == n || std::find(d.aliases.begin(), d.aliases.end(), n) != d.aliases.end()) {
      return &d;
    }
  }
  return nullptr;
}

const ParamDef* ParamRegistry::Nearest(std::string_view name) const {
  if (const ParamDef* d = FindAlias(name)) return d;
  // Short aliases (t, c, ub, fa, ngl) match only as written: any short typo is near them.
  std::vector<std::string> candidates;
  std::vector<const ParamDef*> owner;
  for (const ParamDef& d : defs_) {
    candidates.push_back(d.name);
    owner.push_back(&d);
    for (const std::string& a : d.aliases) {
      if (a.size() <= 3) continue;
      candidates.push_back(a);
      owner.push_back(&d);
    }
  }
  auto near = NearestName(Normalized(name), candidates);
  if (!near) return nullptr;
  const auto it = std::find(candidates.begin(), candidates.end(), *near);
  return owner[static_cast<size_t>(it - candidates.begin())];
}

std::string ParamRegistry::DidYouMean(std::string_view name) const {
  const ParamDef* d = Nearest(name);
  return d ? fmt::format(" (did you mean '{}'?)", d->name) : std::string();
}

std::vector<std::string> ParamRegistry::Names() const {
  std::vector<std::string> out;
  for (const ParamDef& d : defs_) out.push_back(d.name);
  return out;
}

Result<std::string> ParamRegistry::Parse(const ParamDef& def, std::string_view text) const {
  switch (def.kind) {
    case ParamKind::kInt: {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || ptr != text.data() + text.size()) {
        return InputError(fmt::format("{} must be an integer, got '{}'", def.name, text));
      }
      if (v < def.min || v > def.max) {
        return InputError(
            fmt::format("{} must be between {} and {}, got {}", def.name, def.min, def.max, v));
      }
      return std::to_string(v);
    }
    case ParamKind::kBool: {
      if (text == "true" || text == "on" || text == "1" || text == "yes")
        return std::string("true");
      if (text == "false" || text == "off" || text == "0" || text == "no") {
        return std::string("false");
      }
      return InputError(fmt::format("{} must be true or false, got '{}'", def.name, text));
    }
    case ParamKind::kChoice: {
      for (const auto& [alias, choice] : def.value_aliases) {
        if (text == alias) return choice;
      }
      auto it = std::find(def.choices.begin(), def.choices.end(), text);
      if (it == def.choices.end()) {
        std::string also;
        for (const auto& [alias, choice] : def.value_aliases) {
          also += fmt::format("{}{} = {}", also.empty() ? " (" : ", ", alias, choice);
        }
        if (!also.empty()) also += ")";
        return InputError(fmt::format("{} must be one of {}{}, got '{}'", def.name,
                                      fmt::join(def.choices, ", "), also, text));
      }
      return *it;
    }
  }
  return InputError("unreachable");
}

nlohmann::json ParamRegistry::ToJson(const ParamDef& def, const std::string& canonical) {
  switch (def.kind) {
    case ParamKind::kInt: {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(canonical.data(), canonical.data() + canonical.size(), v);
      if (ec != std::errc() || ptr != canonical.data() + canonical.size()) return canonical;
      return v;
    }
    case ParamKind::kBool:
      return canonical == "true";
    case ParamKind::kChoice:
      return canonical;
  }
  return canonical;
}

}  // namespace pipette::runtime
