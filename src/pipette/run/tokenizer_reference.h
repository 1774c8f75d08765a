// The tokenizer a converted model's is checked against (workload::Context::TokenizerReference):
// a worker with the model's source file loaded (the GGUF an ONNX model was converted from, under
// config::Experiment::source_tokenizer), started when a cell first needs it and kept for the
// run; started again for another source, or after it broke.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "pipette/device/device.h"
#include "pipette/plan/plan.h"
#include "pipette/worker/channel.h"
#include "pipette/workload/context.h"

namespace pipette::run {

class TokenizerReference {
 public:
  ~TokenizerReference() { Stop(); }
  // The worker for `cell`'s model's source, or nullptr when the model is no conversion.
  Result<worker::WorkerChannel*, workload::RunError> For(const plan::Cell& cell,
                                                         const std::string& program,
                                                         device::Device& device,
                                                         std::chrono::milliseconds timeout);
  void Stop();

 private:
  std::unique_ptr<worker::WorkerChannel> channel_;
  std::string source_;  // the file it has loaded
};

}  // namespace pipette::run
