#include "pipette/worker/channel.h"
#include "pipette/worker/line_channel.h"
#include "pipette/worker/pipe_transport.h"

namespace pipette::worker {

Result<std::unique_ptr<WorkerChannel>> ProcessLauncher::Launch(
    const std::vector<std::string>& argv) {
  auto transport = PipeTransport::Start(argv);
  if (!transport) return transport.error();
  return std::unique_ptr<WorkerChannel>(new LineChannel(std::move(*transport), argv[0]));
}

}  // namespace pipette::worker
