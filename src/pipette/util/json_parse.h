// JSON from outside Pipette (a server's reply, a JSON report, a store's column, a worker's line)
// parsed with bounds: text that is not JSON, or that nests deeper than a limit, is an error that
// names what was read, never an exception nor a structure deep enough to overflow the stack when
// it is later copied or walked.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "pipette/util/result.h"

namespace pipette {

// Deeper than any JSON Pipette reads or writes (a report nests about 6 levels).
inline constexpr size_t kMaxJsonDepth = 64;

// `text` parsed as JSON. An error (exit code 2) when it is not JSON ("WHAT: not JSON: ...") or
// nests deeper than `max_depth` arrays and objects ("WHAT: JSON nested deeper than 64 levels").
// `what` names the source in the message: a file, "the server's /props reply".
Result<nlohmann::json> ParseJsonBounded(std::string_view text, std::string_view what,
                                        size_t max_depth = kMaxJsonDepth);

}  // namespace pipette
