#include "pipette/workload/speed/random_tokens.h"

namespace pipette::workload {
namespace {

// SplitMix64: a fixed, portable generator (std::hash and std distributions differ between C++
// libraries, and every build must draw the same prompts).
uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<int64_t> RandomTokens(uint64_t seed, const std::string& salt, int64_t n,
                                  int64_t n_vocab) {
  uint64_t state = seed;
  for (unsigned char ch : salt) state = (state ^ ch) * 0x100000001B3ull;  // FNV-1a style mix
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (auto& t : out) {
    // Modulo bias is below 1e-14 for any real vocabulary (n_vocab << 2^64).
    t = static_cast<int64_t>(SplitMix64(state) % static_cast<uint64_t>(n_vocab));
  }
  return out;
}

}  // namespace pipette::workload
