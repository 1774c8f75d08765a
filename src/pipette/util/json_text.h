// A JSON scalar as people read it: a string as itself, anything else as its JSON text (2, true).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipette {

inline std::string JsonText(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace pipette
