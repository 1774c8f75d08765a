// The canonical form of an experiment as written, and config_hash. The form holds the keys the
// file gives and nothing else: comments, key order and formatting fall away (a list keeps its
// order: it orders the cells), a value is in its canonical spelling (`flash_attn: true` is
// "on", `threads: 2` is ["2"]), and a default the file leaves out is not there, while one it
// writes out is. Nothing resolved (a model's path) or derived from the machine is in it: those
// are stored beside the hash (Experiment::Resolved()). `description:` and `store:` are left out
// too: they change nothing that is measured.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pipette/config/written.h"

namespace pipette::config {

nlohmann::json CanonicalForm(const WrittenExperiment& ex);

// SHA-256 of CanonicalForm(ex).dump(), in hex.
std::string ConfigHash(const WrittenExperiment& ex);

// For the canonical form of a workload's entry (config/spec_def.h): `key` only when written.
template <class T>
void PutWritten(nlohmann::json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
// corpus:, n_ctx: and chunks: of what reads a corpus in chunks (ppl, kld, an importance matrix),
// those written.
void PutChunks(nlohmann::json& j, const WrittenFile& corpus, const std::optional<int>& n_ctx,
               const std::optional<int>& chunks);

}  // namespace pipette::config
