// Whether a message is what the protocol says an op's request or response is: it parses as the
// op's typed struct (session_ops.h, ...). For the worker conformance suite and for checks of
// what a worker says; the controller and workers read messages with the structs themselves.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "pipette/util/result.h"

namespace pipette::protocol {

// A request (its "op" says which); an unknown op fails.
Status CheckRequest(const nlohmann::json& request);
// A successful response to `op`; `frames`: the response line of a score with `logits: true`.
Status CheckResponse(std::string_view op, const nlohmann::json& response, bool frames = false);

}  // namespace pipette::protocol
