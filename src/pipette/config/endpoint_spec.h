// An endpoint runtime's own keys as written in an experiment file (a runtime reached over HTTP, the
// `openai` runtime: docs/config.md "Endpoints"): where the server is, or how Pipette starts one,
// the model name it is asked for, the name of the environment variable that holds the API key
// (never the key), and the keys added to every request body.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/endpoint/spec.h"

namespace pipette::config {

// server: as written. `bundled` (the pinned llama-server Pipette builds) or a command of its own.
struct WrittenServer {
  bool bundled = false;
  // The command (argv) when not bundled; "{model}", "{port}", "{threads}", "{n_ctx}" and
  // "{parallel}" are replaced when it starts.
  std::vector<std::string> command{};
  std::optional<int> parallel{};       // slots; default: the highest concurrency of the experiment
  std::optional<int> ready_timeout{};  // seconds until GET /health must answer 200
  std::vector<std::string> args{};     // extra arguments for the bundled server
};

// The endpoint keys of a runtime entry, as written.
struct WrittenEndpoint {
  std::optional<std::string> base_url{};  // a running server ("http://127.0.0.1:8080/v1")
  std::optional<std::string> model{};     // the name the server is asked for
  std::optional<std::string> api_key_env{};
  nlohmann::json body = nlohmann::json::object();  // added to every request body
  std::optional<WrittenServer> server{};
  int line = 0;  // the runtime entry's line, for errors
};

}  // namespace pipette::config
