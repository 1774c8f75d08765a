// The files an experiment names, found and checked on this machine: models (bundled names or
// paths, read by their model format), corpora and datasets. Part of the resolve step
// (config/resolve.h).
#pragma once

#include <string>

#include "pipette/config/experiment.h"
#include "pipette/config/resolve_options.h"
#include "pipette/config/written.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/util/result.h"

namespace pipette::config {

// A data file named in the experiment: relative to the experiment file, then to the current
// folder; it must be a readable regular file. Errors are placed at `pos`.
Result<std::string> ResolveDataPath(const Where& w, const Place& pos, const std::string& written,
                                    const std::string& what);

// A model: a bundled name (installed under options.models_dir) or a path (relative to the
// experiment file, then to the current folder) to a model in one of options.formats, which
// reads its quantization, trained context and, for a model Pipette made, its provenance.
Result<ModelSpec> ResolveModel(const Where& w, const WrittenModel& written,
                               const ResolveOptions& options);

// The corpus Pipette ships (datasets/ppl), used when a workload or an importance matrix names
// none.
inline constexpr const char* kDefaultPplCorpus = "ppl/devils-dictionary.txt";

// The corpus a workload names, or the shipped one when it names none; either way the file must
// be there.
Result<std::string> CorpusFile(const Where& w, const WrittenFile& corpus,
                               const ResolveOptions& options, const std::string& what);

// The dataset file a workload names (mc, gen), else the one Pipette ships (`default_file`,
// under options.datasets_dir).
Result<std::string> DatasetFile(const Where& w, const WrittenFile& dataset,
                                const ResolveOptions& options, const std::string& workload,
                                const char* default_file);

// A corpus is read in chunks of n_ctx tokens, and one that cannot fill a single chunk measures
// nothing. Its tokens are known only once a model has tokenized it, but a token covers at least
// one byte: a file of fewer bytes than n_ctx, less the one BOS token a tokenizer may add, can
// never fill a chunk, whatever the model. Its text must be UTF-8 (it is sent in JSON requests):
// the first bad byte is named by line, column and offset (exit 2).
Status CheckCorpusFitsAChunk(const Where& w, const Place& pos, const std::string& path, int n_ctx,
                             const std::string& what);

}  // namespace pipette::config
