// The parameter registry type: every parameter Pipette can sweep is one ParamDef (name, type,
// default, request field, reply field, report column, help). Each runtime owns its own
// (runtime/runtime.h; llama.cpp's are in runtime/llama.cc); Pipette's own, which every runtime
// has, are in runtime/pipette_params.cc. Adding a parameter is adding one entry there, plus the
// worker's read of its request field (docs/architecture.md).
//
// A runtime parameter an experiment does not set has no Pipette default: it is not sent, the
// runtime applies its own default, and the worker reports what it applied (docs/config.md).
// Only Pipette's own parameters (n_ctx 0 = just enough, depth) have one.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::runtime {

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
  // Recorded when unset and the runtime did not report it ("" for nothing). With
  // runtime_resolves, also how reports show a value left to the runtime: "on (auto)", where it
  // resolved one, "auto (unresolved)" where it did not say.
  std::string unreported{};
  // Set by the experiment, the runtime must apply it as planned: its stage's reply reporting
  // another value (in `applied_field`, else the field named as the parameter) fails the cell,
  // so the stored value is the one that ran (n_ctx, n_batch, n_ubatch: the plan resolved them).
  bool must_apply_as_planned = false;
  // What applies when the experiment leaves it unset, for docs/config.md (Markdown).
  std::string default_doc{};
  // Reports show its column even where every cell has the same value (threads, flash_attn).
  bool always_column = false;
  // It changes the model's output distribution, not only its speed (KV-cache types, flash
  // attention): a reference a cell is compared with (kld) keeps the reference cell's value.
  bool changes_distribution = false;
  // Its place in cell keys, labels and report columns (smaller first; equal: registry order).
  // Cell keys are stored, so an existing parameter's place never changes.
  int order = 0;
  // The runtimes that define it, set by the runtime registry (runtime/registry.h); empty:
  // Pipette's own, which every runtime has (n_ctx, depth).
  std::vector<std::string> runtimes{};

  bool HasDefault() const { return !default_value.empty(); }
  // A cell of `runtime` holds it (and its worker is sent it).
  bool BelongsTo(std::string_view runtime) const;
  // The runtime resolved a value the experiment left to it: runtime_resolves, with an
  // `unreported` value, and `asked` (what the cell set; nullptr: nothing) absent or that value.
  bool LeftToRuntime(const std::string* asked) const;
};

// "load", "context" or "test": the stage a scope names in help and docs.
const char* StageName(ParamScope scope);

class ParamRegistry {
 public:
  // The parameters an experiment may set: Pipette's own and those of every registered runtime
  // (runtime::Registry().Params()), unset unless an experiment sets them.
  static ParamRegistry Default();
  explicit ParamRegistry(std::vector<ParamDef> defs) : defs_(std::move(defs)) {}

  const std::vector<ParamDef>& defs() const { return defs_; }
  // The parameters that belong to at least one of `runtimes` (ParamDef::BelongsTo), in order.
  ParamRegistry Of(const std::vector<std::string>& runtimes) const;
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

}  // namespace pipette::runtime
