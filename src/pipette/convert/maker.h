// Makes converted ONNX models (convert:) with Pipette's converter (converters/onnx, run as
// `python -m pipette_convert` through a CommandRunner) and keeps them in a cache of folders
// keyed by what defines their bytes: fp32 from the GGUF first, the quantized variants from it.
// A conversion that fails makes only its own models (and those made from it) unavailable.
#pragma once

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/convert/conversion.h"
#include "pipette/env/process.h"
#include "pipette/util/command.h"
#include "pipette/util/result.h"

namespace pipette::convert {

struct ConvertJob {
  ConversionSpec spec;
  std::string output;  // the folder in the cache
};

// A converted model that is there: made now or found in the cache.
struct MadeConversion {
  bool cached = false;
  nlohmann::json provenance;  // ConversionSpec::Provenance(), the folder's meta, how long
};

struct ConverterOptions {
  std::string python;         // the interpreter with the pinned packages (PIPETTE_VENV_PYTHON)
  std::string converter_dir;  // <source>/converters/onnx: the PYTHONPATH
  double timeout_s = 3600;    // per conversion
  std::function<void(const std::string&)> say;   // progress lines for people
  const std::atomic<bool>* stop = nullptr;       // stop before the next conversion
  const env::ProcessTable* processes = nullptr;  // nullptr: this machine's
};

// The converter, as `pipette_convert version` names itself: a cached folder made by another
// version is made again.
struct ConverterIdentity {
  std::string version;
  nlohmann::json packages;
};

// The command that runs the converter with `args` ("version", "gguf", ...).
Command ConverterCommand(const ConverterOptions& options, std::vector<std::string> args);

Result<ConverterIdentity> AskConverter(CommandRunner& runner, const ConverterOptions& options);

// The provenance recorded beside a cached folder (`<output>.json`) when the folder is there and
// was made for this definition by this converter version; nullopt otherwise.
std::optional<nlohmann::json> CachedConversion(const ConvertJob& job, const ConverterIdentity& by);

// The fp32 job a quantized variant is made from (same base, its own folder beside the others).
ConvertJob SourceJob(const ConvertJob& job);

// One result per job, in order. Jobs with the same output are made once; a quantized variant's
// fp32 source is made first (also when no job asks for it).
std::vector<Result<MadeConversion>> MakeConversions(const std::vector<ConvertJob>& jobs,
                                                    CommandRunner& runner,
                                                    const ConverterOptions& options);

}  // namespace pipette::convert
