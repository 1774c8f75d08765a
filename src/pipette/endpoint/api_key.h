// An endpoint's API key, read from the environment variable an experiment names (never from the
// experiment itself): checked when the experiment is resolved, read again when the endpoint is
// spoken to, and never stored, logged or put in an error.
#pragma once

#include <string>
#include <string_view>

#include "pipette/util/result.h"

namespace pipette::endpoint {

// The key in `variable`: "" when `variable` is empty; an input error (exit code 2) naming the
// variable, never its value, when it is unset, empty or holds a control character (sent as a
// header, a line break would inject another).
Result<std::string> ApiKeyFromEnvironment(std::string_view variable);

}  // namespace pipette::endpoint
