#include "pipette/endpoint/spec.h"

namespace pipette::endpoint {

using nlohmann::json;

json EndpointSpec::ToJson() const {
  json j = {{"model", model}, {"body", body}};
  if (!base_url.empty()) j["base_url"] = base_url;
  if (!api_key_env.empty()) j["api_key_env"] = api_key_env;
  if (start_server) {
    j["server"] = {{"bundled", server_bundled}, {"command", server_command}};
    if (!server_args.empty()) j["server"]["args"] = server_args;
    if (parallel) j["server"]["parallel"] = *parallel;
  }
  return j;
}

}  // namespace pipette::endpoint
