// The parameter registry type: every runtime parameter Pipette can sweep is one ParamDef (name,
// type, default, request field, reply field, report column, help). Each runtime owns its own
// (runtime/runtime.h; llama.cpp's are in runtime/llama.cc). Adding a parameter is adding one
// entry there, plus the worker's read of its request field (docs/architecture.md).
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

// One runtime parameter, everything about it: how it is written and checked, when and as what
// it reaches a worker, what the worker says it applied, its report column and its help. The
// requests (run/runtime_params.h), `pipette params` and docs/config.md's table (checked by a
// test) are made from these fields, so adding a parameter is adding an entry here plus the
// worker's read of its request field.
struct ParamDef {
  std::string name;
  std::string help{};  // what it does, one line (`pipette params`, docs/config.md)
  ParamKind kind = ParamKind::kInt;
  ParamScope scope = ParamScope::kContext;  // its stage: load_model, init_context or per test
  // Canonical text, or empty: unset, the runtime's default applies (nothing is sent).
  std::string default_value{};
  std::vector<std::string> choices{};  // kChoice only
  int64_t min = 0, max = 0;            // kInt only (inclusive)
  std::string column{};                // its column header in reports
  // Names other tools give it (llama.cpp's n_threads, -t, --ctx-size...), lower case with '_'
  // for '-': an experiment file must still use `name`; these only find it for "did you mean".
  std::vector<std::string> aliases{};
  // kChoice only: other spellings of a value and the choice each means ({"true", "on"}).
  std::vector<std::pair<std::string, std::string>> value_aliases{};
  // The fields of its stage's request (load_model for kLoad, init_context for kContext) that
  // carry its value, sent only when the cell sets it; empty: in no request (a test parameter,
  // which the runner uses itself).
  std::vector<std::string> request_fields{};
  // The field of its stage's reply that says what the runtime applied: recorded as the cell's
  // value when the experiment leaves it unset; "" for none.
  std::string applied_field{};
  // The applied value is recorded even when the experiment sets it (flash_attn: the runtime
  // resolves auto, and turns off what it cannot do).
  bool runtime_resolves = false;
  // Recorded when unset and the runtime did not report it ("" for nothing).
  std::string unreported{};
  // What applies when the experiment leaves it unset, for docs/config.md (Markdown).
  std::string default_doc{};

  bool HasDefault() const { return !default_value.empty(); }
};

// "load", "context" or "test": the stage a scope names in help and docs.
const char* StageName(ParamScope scope);

class ParamRegistry {
 public:
  // The parameters an experiment may set: those of every registered runtime
  // (runtime::Registry().Params()), unset unless an experiment sets them.
  static ParamRegistry Default();
  explicit ParamRegistry(std::vector<ParamDef> defs) : defs_(std::move(defs)) {}

  const std::vector<ParamDef>& defs() const { return defs_; }
  const ParamDef* Find(std::string_view name) const;
  // The report column of parameter `name`: its `column`, or `name` itself when it has none or
  // is not a registry parameter.
  std::string Column(std::string_view name) const;
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
