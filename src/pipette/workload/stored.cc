#include "pipette/workload/stored.h"

#include <nlohmann/json.hpp>

namespace pipette::workload {

Status ReadStored(const std::string& what, const std::function<void()>& read) {
  try {
    read();
  } catch (const nlohmann::json::exception& e) {
    return RuntimeError("stored " + what + " data could not be read: " + e.what());
  }
  return {};
}

}  // namespace pipette::workload
