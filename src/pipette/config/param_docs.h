// The parameter registry as people read it: docs/config.md's table (a unit test checks that the
// file holds exactly this) and the parameter list `pipette run --help` prints. Made from the
// registry alone.
#pragma once

#include <string>

#include "pipette/runtime/params.h"

namespace pipette::config {

// The type column: "int 1–1024", "bool", or the choices ("`auto`, `on`, `off` (`true` = `on`,
// ...)"); backticks only when `markdown`.
std::string ParamTypeText(const runtime::ParamDef& def, bool markdown);

// The runtimes a parameter belongs to: "llama.cpp", or "every (Pipette's)" for Pipette's own.
std::string ParamRuntimesText(const runtime::ParamDef& def);

// docs/config.md's parameter table: a header, then one row per parameter in registry order
// (name, runtimes, type, stage, default when not set, meaning), each line ending in '\n'.
std::string ParamTableMarkdown(const runtime::ParamRegistry& registry);

// The parameter list of `pipette run --help`: each parameter with its type and stage, the runtimes
// it belongs to, its help, what applies when unset and the names other tools give it.
std::string ParamHelpText(const runtime::ParamRegistry& registry);

}  // namespace pipette::config
