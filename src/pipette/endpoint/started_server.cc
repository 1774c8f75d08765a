#include "pipette/endpoint/started_server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <regex>

#include "pipette/protocol/ops.h"
#include "pipette/protocol/session_ops.h"

namespace pipette::endpoint {

using nlohmann::json;
using worker::CallError;
using worker::FailedCall;

std::string ServerVersion(const std::string& program) {
  std::string quoted;
  for (char c : program) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  // A program that ignores --version must not hold the run: ten seconds at most.
  const std::string cmd = "timeout 10 '" + quoted + "' --version 2>&1 </dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return "";
  std::string out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), static_cast<int>(buf.size()), p)) out += buf.data();
  ::pclose(p);
  // "version: 0.5.0-dev (build 1, commit 0c1e570)": as /props' build_info says it, b1-0c1e570.
  std::smatch m;
  static const std::regex kVersion(R"(version: \S+ \(build (\d+), commit (\w+)\))");
  if (std::regex_search(out, m, kVersion)) return "b" + m[1].str() + "-" + m[2].str();
  return "";
}

std::vector<std::string> StartedServer::Argv(const std::string& model_path, int64_t n_ctx,
                                             std::optional<int64_t> threads, int slots) const {
  if (spec_.server_bundled) {
    std::vector<std::string> argv = {spec_.server_command.at(0),
                                     "-m",
                                     model_path,
                                     "--host",
                                     "127.0.0.1",
                                     "--port",
                                     "{port}",
                                     "-c",
                                     std::to_string(n_ctx * slots),
                                     "--parallel",
                                     std::to_string(slots),
                                     "--cache-ram",
                                     "0",
                                     "--no-webui"};
    if (threads) {
      for (const char* flag : {"-t", "-tb"}) {
        argv.push_back(flag);
        argv.push_back(std::to_string(*threads));
      }
    }
    argv.insert(argv.end(), spec_.server_args.begin(), spec_.server_args.end());
    return argv;
  }
  std::vector<std::string> argv;
  for (std::string a : spec_.server_command) {
    auto put = [&](const std::string& key, const std::string& value) {
      for (size_t p = a.find(key); p != std::string::npos; p = a.find(key, p + value.size())) {
        a.replace(p, key.size(), value);
      }
    };
    put("{model}", model_path);
    put("{n_ctx}", std::to_string(n_ctx * slots));
    put("{parallel}", std::to_string(slots));
    put("{threads}", threads ? std::to_string(*threads) : "");
    argv.push_back(a);
  }
  return argv;
}

Result<bool> StartedServer::Ensure(const std::vector<std::string>& argv) {
  const std::string key = fmt::format("{}", fmt::join(argv, "\x1f"));
  if (server_ && server_->Alive() && key == key_) return false;
  Stop();
  if (!log_dir_) log_dir_ = std::make_unique<TempDir>("pipette-server");
  const auto log = log_dir_->path() / fmt::format("server-{}.log", ++starts_);
  auto started = ServerProcess::Start(argv, log, client_,
                                      std::chrono::seconds(spec_.ready_timeout_s), cancel_);
  if (!started) return started.error();
  server_ = std::move(*started);
  key_ = key;
  return true;
}

void StartedServer::Stop() {
  if (server_) server_->Stop();
  server_.reset();
  key_.clear();
}

std::optional<device::ProcessMemory> StartedServer::ReadMemory() const {
  if (!server_ || !device_) return std::nullopt;
  return device_->WorkerMemory(static_cast<int>(server_->pid()));
}

json StartedServer::ResetPeak() {
  protocol::ResetPeakMemoryResponse resp;
  if (!server_) {
    // The server starts inside this cell: its peak is this cell's from its first byte.
    resp.supported = true;
    return json(resp.ToJson());
  }
  const std::string path = fmt::format("/proc/{}/clear_refs", server_->pid());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    resp.supported = ::write(fd, "5", 1) == 1;
    ::close(fd);
  }
  if (auto m = ReadMemory()) {
    resp.rss = m->rss_bytes;
    resp.hwm = m->hwm_bytes;
  }
  return json(resp.ToJson());
}

Result<json, CallError> StartedServer::Memory() {
  auto m = ReadMemory();
  if (!m || m->rss_bytes < 0 || m->hwm_bytes < 0) {
    return FailedCall(protocol::op::kMemory, "the server's memory could not be read");
  }
  protocol::MemoryResponse resp;
  resp.rss = m->rss_bytes;
  resp.hwm = m->hwm_bytes;
  json out = resp.ToJson();
  out["process"] = "server";
  return out;
}

}  // namespace pipette::endpoint
