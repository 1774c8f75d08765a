// The parameter registry: every runtime parameter Pipette can sweep is one entry here
// (name, type, default, parser, display). Adding a parameter is adding one entry.
//
// A runtime parameter an experiment does not set has no Pipette default: it is not sent, the
// runtime applies its own default, and the worker reports what it applied (docs/config.md).
// Only parameters whose meaning is Pipette's own (n_ctx 0 = just enough, depth) have one.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::config {

enum class ParamKind { kInt, kBool, kChoice };

// When a parameter takes effect in a worker: at model load, or at context creation, or per test.
// Cells are ordered so that load-time parameters change least often (fewest model loads).
enum class ParamScope { kLoad, kContext, kTest };

struct ParamDef {
  std::string name;
  std::string help;
  ParamKind kind = ParamKind::kInt;
  ParamScope scope = ParamScope::kContext;
  // Canonical text, or empty: unset, the runtime's default applies (nothing is sent).
  std::string default_value;
  std::vector<std::string> choices;  // kChoice only
  int64_t min = 0, max = 0;          // kInt only (inclusive)
  std::string column;                // short header in the console table; empty: not shown
  // Names other tools give it (llama.cpp's n_threads, -t, --ctx-size...), lower case with '_'
  // for '-': an experiment file must still use `name`; these only find it for "did you mean".
  std::vector<std::string> aliases{};
  // kChoice only: other spellings of a value and the choice each means ({"true", "on"}).
  std::vector<std::pair<std::string, std::string>> value_aliases{};

  bool HasDefault() const { return !default_value.empty(); }
};

class ParamRegistry {
 public:
  // The registry: runtime parameters unset unless an experiment sets them.
  static ParamRegistry Default();
  explicit ParamRegistry(std::vector<ParamDef> defs) : defs_(std::move(defs)) {}

  const std::vector<ParamDef>& defs() const { return defs_; }
  const ParamDef* Find(std::string_view name) const;
  std::vector<std::string> Names() const;
  // The parameter `name` is another tool's name for (an alias; "--ctx-size" counts as
  // ctx_size), or the parameter itself written differently ("Threads"); nullptr if neither.
  const ParamDef* FindAlias(std::string_view name) const;
  // FindAlias, else the parameter whose name or alias is near enough to be a typo; nullptr if
  // none is.
  const ParamDef* Nearest(std::string_view name) const;
  // " (did you mean 'threads'?)" for Nearest(name), or "".
  std::string DidYouMean(std::string_view name) const;

  // Parses one value as written in an experiment file into its canonical text, or says why not
  // (without location: the caller adds file:line).
  Result<std::string> Parse(const ParamDef& def, std::string_view text) const;
  // Canonical text to the JSON a worker receives (int -> number, bool -> true/false, choice ->
  // string).
  static nlohmann::json ToJson(const ParamDef& def, const std::string& canonical);

 private:
  std::vector<ParamDef> defs_;
};

}  // namespace pipette::config
