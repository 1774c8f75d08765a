#include "pipette/run/tokenizer_reference.h"

#include <fmt/format.h>

#include "pipette/device/loaded_worker.h"

namespace pipette::run {

void TokenizerReference::Stop() {
  if (channel_) channel_->Shutdown(std::chrono::milliseconds(2000));
  channel_.reset();
  source_.clear();
}

Result<worker::WorkerChannel*, workload::RunError> TokenizerReference::For(
    const plan::Cell& cell, const std::string& program, device::Device& device,
    std::chrono::milliseconds timeout) {
  const std::string& source = cell.model.tokenizer_source;
  if (source.empty()) return static_cast<worker::WorkerChannel*>(nullptr);
  if (channel_ && channel_->Alive() && source_ == source) return channel_.get();
  Stop();
  auto failed = [&](const std::string& why) {
    Stop();
    return workload::Failed(fmt::format(
        "cannot check the model's tokenizer against the file it was converted from ({}): {}",
        source, why));
  };
  if (program.empty()) return failed("no registered runtime loads it");
  auto staged = device.Stage(source);
  if (!staged) return failed(staged.error().message);
  auto ch = device::StartLoadedWorker(device, program, *staged, timeout);
  if (!ch) return failed(ch.error().message);
  channel_ = std::move(*ch);
  source_ = source;
  return channel_.get();
}

}  // namespace pipette::run
