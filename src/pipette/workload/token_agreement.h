// Where two tokenizations of the same text part: a runtime's tokens against a reference's (the
// kld reference, another runtime's tokenizer of the same weights). A disagreement names the first
// differing position, so a converted tokenizer's mistake can be found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pipette::workload {

// nullopt when `mine` and `reference` are the same list; else where they first differ, in words:
// "at token 17 of 2048: id 3 here, id 1045 in the reference", or "the first 12 tokens agree,
// then this tokenizer ends (12 tokens) and the reference goes on (13)".
std::optional<std::string> FirstTokenDifference(const std::vector<int64_t>& mine,
                                                const std::vector<int64_t>& reference);

}  // namespace pipette::workload
