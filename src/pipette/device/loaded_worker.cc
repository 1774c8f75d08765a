#include "pipette/device/loaded_worker.h"

#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/session_ops.h"

namespace pipette::device {

Result<std::unique_ptr<worker::WorkerChannel>> StartLoadedWorker(
    Device& device, const std::string& program, const std::string& device_path,
    std::chrono::milliseconds timeout) {
  auto ch = device.StartWorker({program});
  if (!ch) return ch.error();
  auto stop = [&](const std::string& why) -> Error {
    (*ch)->Shutdown(std::chrono::milliseconds(2000));
    return RuntimeError(why);
  };
  if (auto hello = (*ch)->Call(protocol::HelloRequest{}.ToJson(), timeout); !hello) {
    return stop(hello.error().message);
  }
  protocol::LoadModelRequest load;
  load.path = device_path;
  if (auto loaded = (*ch)->Call(load.ToJson(), timeout); !loaded) {
    return stop(loaded.error().message);
  }
  return std::move(*ch);
}

}  // namespace pipette::device
