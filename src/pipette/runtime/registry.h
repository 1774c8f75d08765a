// The runtime registry: every runtime an experiment may name is one entry (runtime/runtime.h).
// Registering a runtime is one line in Registry() (registry.cc), its entry's file, its worker
// and the worker's build line (docs/architecture.md "Adding a runtime").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pipette/runtime/pipette_params.h"
#include "pipette/runtime/runtime.h"
#include "pipette/util/result.h"

namespace pipette::runtime {

class RuntimeRegistry {
 public:
  // `own`: the parameters every runtime has besides its own (Pipette's, pipette_params.h).
  explicit RuntimeRegistry(std::vector<Runtime> runtimes,
                           const ParamRegistry& own = PipetteParams());

  const std::vector<Runtime>& runtimes() const { return runtimes_; }
  std::vector<std::string> Names() const;
  const Runtime* Find(std::string_view name) const;
  // The runtime `name`, or bad input (exit code 2, without location: the caller adds file:line)
  // "unknown runtime 'x' (did you mean 'llama.cpp'?) (known: llama.cpp, onnxruntime)".
  Result<const Runtime*> Lookup(std::string_view name) const;
  // The parameters an experiment may set, in ParamDef::order: Pipette's own (every runtime's)
  // and every runtime's, each name once, each saying the runtimes that define it
  // (ParamDef::runtimes). A name two runtimes share is the first one's definition; a runtime's
  // parameter named as one of Pipette's own is Pipette's.
  const ParamRegistry& Params() const { return params_; }

 private:
  std::vector<Runtime> runtimes_;
  ParamRegistry params_{{}};
};

// The runtimes Pipette ships, built once (immutable).
const RuntimeRegistry& Registry();

}  // namespace pipette::runtime
