// What the controller needs to reach or start an endpoint's server (the `openai` runtime:
// docs/config.md "Endpoints"), resolved from the runtime entry of an experiment
// (config/endpoint_spec.h holds the keys as written). It names the environment variable that
// holds the API key, never the key.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pipette::endpoint {

struct EndpointSpec {
  std::string base_url{};  // "" when Pipette starts the server (its URL is known then)
  std::string model{};     // "": the first model the server's /v1/models lists
  std::string api_key_env{};
  nlohmann::json body = nlohmann::json::object();
  bool start_server = false;
  // The server's command: the bundled llama-server's path first when bundled.
  std::vector<std::string> server_command{};
  bool server_bundled = false;
  std::vector<std::string> server_args{};
  std::optional<int> parallel{};
  int ready_timeout_s = 180;

  // What identifies it in the store and the canonical form (no secret: the key's variable name).
  nlohmann::json ToJson() const;
};

}  // namespace pipette::endpoint
