// What a worker's handler answers: the response fields (without "id" and "ok"), or an error
// whose message the controller shows a person (docs/protocol.md "Errors").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pipette/util/result.h"

namespace pipette::worker_common {

using Reply = Result<nlohmann::ordered_json>;

inline Error Fail(std::string message) { return Error{std::move(message)}; }

}  // namespace pipette::worker_common
