// A helper worker with a model loaded and nothing else: a tokenizer to check another against
// (run/tokenizer_reference.h), or to count what an endpoint streamed (endpoint/channel.cc).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "pipette/device/device.h"

namespace pipette::device {

// Starts `program` on `device`, says hello and loads the file at `device_path` (a path on the
// device: Stage()'s answer). The error is the step's own message.
Result<std::unique_ptr<worker::WorkerChannel>> StartLoadedWorker(Device& device,
                                                                 const std::string& program,
                                                                 const std::string& device_path,
                                                                 std::chrono::milliseconds timeout);

}  // namespace pipette::device
