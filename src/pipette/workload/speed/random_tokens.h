// Deterministic pseudo-random token ids for the speed tests' prompts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pipette::workload {

// The same seed, salt and vocabulary size give the same ids on every machine and build.
std::vector<int64_t> RandomTokens(uint64_t seed, const std::string& salt, int64_t n,
                                  int64_t n_vocab);

}  // namespace pipette::workload
