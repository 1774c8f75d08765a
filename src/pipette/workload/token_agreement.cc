#include "pipette/workload/token_agreement.h"

#include <fmt/format.h>

#include <algorithm>

namespace pipette::workload {

std::optional<std::string> FirstTokenDifference(const std::vector<int64_t>& mine,
                                                const std::vector<int64_t>& reference) {
  const size_t n = std::min(mine.size(), reference.size());
  const auto [a, b] =
      std::mismatch(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(n), reference.begin());
  if (a != mine.begin() + static_cast<std::ptrdiff_t>(n)) {
    return fmt::format("at token {} of {}: id {} here, id {} in the reference", a - mine.begin(),
                       reference.size(), *a, *b);
  }
  if (mine.size() == reference.size()) return std::nullopt;
  return fmt::format(
      "the first {} tokens agree, then {} ends ({} tokens here, {} in the reference)", n,
      mine.size() < reference.size() ? "this tokenizer" : "the reference", mine.size(),
      reference.size());
}

}  // namespace pipette::workload
