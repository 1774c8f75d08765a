// Parsing an endpoint runtime's own keys (config/endpoint_spec.h), part of config/parse.h and
// pure as it is: base_url, model, api_key_env, body, server.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "pipette/config/endpoint_spec.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/util/result.h"

namespace pipette::config {

// The keys an endpoint runtime entry may have besides `name`.
const std::vector<std::string>& EndpointKeys();

// One key of an endpoint runtime entry into `e`; `key` is one of EndpointKeys() or `api_key`
// (refused: a key is given by the name of its environment variable, and its value is never
// repeated in the error).
// `path` names the entry ("runtimes[1]").
Status ParseEndpointKey(const Where& w, YamlMapping& entry, const std::string& key,
                        const std::string& path, WrittenEndpoint* e);

// After every key: exactly one of base_url and server.
Status CheckEndpoint(const Place& entry, const WrittenEndpoint& e);

// The canonical form of what the entry writes.
nlohmann::json CanonicalEndpoint(const WrittenEndpoint& e);

}  // namespace pipette::config
