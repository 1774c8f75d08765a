#include "pipette/protocol/message.h"

#include <algorithm>

namespace pipette::protocol {

nlohmann::json OtherFields(const nlohmann::json& message,
                           std::initializer_list<const char*> known) {
  nlohmann::json rest = nlohmann::json::object();
  if (!message.is_object()) return rest;
  for (const auto& item : message.items()) {
    const std::string& key = item.key();
    if (key == "id" || key == "ok" || key == "op" || key == "error") continue;
    if (std::any_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) continue;
    rest[key] = item.value();
  }
  return rest;
}

}  // namespace pipette::protocol
