// The server an endpoint runtime starts itself (`server:` in the experiment, endpoint/spec.h):
// its command line for a context (the bundled llama-server's flags, or the experiment's command
// with {model}, {n_ctx}, {parallel} and {threads} filled in), started or kept running when the
// next context asks the same, stopped; its build (`--version`); and its memory, read as a
// worker's is (peak reset, resident and peak bytes).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/device/device.h"
#include "pipette/endpoint/server.h"
#include "pipette/endpoint/spec.h"
#include "pipette/http/client.h"
#include "pipette/util/result.h"
#include "pipette/util/temp_dir.h"
#include "pipette/worker/channel.h"

namespace pipette::endpoint {

// The build `argv[0] --version` names, as llama-server's /props says it ("b1-0c1e570"), or "".
std::string ServerVersion(const std::string& program);

class StartedServer {
 public:
  // `device` reads the server's memory (may be null: then it is not read); `cancel` (Ctrl-C)
  // stops waiting for it to be ready.
  StartedServer(const EndpointSpec& spec, http::HttpClient& client, device::Device* device,
                const std::atomic<bool>* cancel)
      : spec_(spec), client_(client), device_(device), cancel_(cancel) {}
  ~StartedServer() { Stop(); }

  // The server's argv for a context of `n_ctx` tokens per slot.
  std::vector<std::string> Argv(const std::string& model_path, int64_t n_ctx,
                                std::optional<int64_t> threads, int slots) const;
  // The server of `argv`, started unless the one running is it: whether it was started now.
  Result<bool> Ensure(const std::vector<std::string>& argv);
  void Stop();

  bool Running() const { return bool(server_); }
  // The running server (Running() first).
  ServerProcess& Process() { return *server_; }
  int Pid() const { return server_ ? static_cast<int>(server_->pid()) : 0; }
  bool Alive() const { return server_ && server_->Alive(); }
  std::string LogTail(int lines) const { return server_ ? server_->LogTail(lines) : ""; }

  // The memory ops (protocol/session_ops.h): the peak reset (where nothing runs yet, the server
  // starts inside this cell: its peak is the cell's from its first byte), and the reading.
  nlohmann::json ResetPeak();
  Result<nlohmann::json, worker::CallError> Memory();

 private:
  std::optional<device::ProcessMemory> ReadMemory() const;

  const EndpointSpec& spec_;
  http::HttpClient& client_;
  device::Device* device_ = nullptr;
  const std::atomic<bool>* cancel_ = nullptr;
  std::unique_ptr<TempDir> log_dir_;
  std::unique_ptr<ServerProcess> server_;
  std::string key_;  // the argv it runs, joined
  int starts_ = 0;
};

}  // namespace pipette::endpoint
