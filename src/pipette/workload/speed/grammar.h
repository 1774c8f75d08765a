// The pieces the test kinds' grammars share (kinds/*.cc): a count of tokens after a prefix
// (pp<N>, tg<N>, ttft@<P>) and a part of a test name that is a count of tokens (e2e@<P>+<N>),
// each bounded by kMaxTestTokens, with the messages a person reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pipette/config/written.h"
#include "pipette/util/result.h"

namespace pipette::workload::speed {

// `text` read as `prefix` then a positive count of tokens (at most kMaxTestTokens), as a test of
// `kind` named `canonical_prefix` + the count; nullopt when `text` does not start with `prefix`.
std::optional<Result<config::TestSpec>> TokensAfter(std::string_view text, std::string_view prefix,
                                                    const std::string& kind,
                                                    const std::string& canonical_prefix);

// `num`, a part of the test name `text`, as a positive count of tokens (`what`: the part it is,
// for the message).
Result<int> TestTokens(std::string_view text, std::string_view num, std::string_view what);

}  // namespace pipette::workload::speed
