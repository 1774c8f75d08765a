#include "pipette/endpoint/api_key.h"

#include <fmt/format.h>

#include <cstdlib>

#include "pipette/http/text.h"

namespace pipette::endpoint {

Result<std::string> ApiKeyFromEnvironment(std::string_view variable) {
  if (variable.empty()) return std::string();
  const char* v = std::getenv(std::string(variable).c_str());
  if (!v || !*v) {
    return InputError(
        fmt::format("api_key_env: the environment variable {} is not set (or is "
                    "empty); set it to the endpoint's API key",
                    variable));
  }
  if (http::HasControlCharacter(v)) {
    return InputError(fmt::format(
        "api_key_env: the environment variable {} holds a control character (a line break, a "
        "tab): an API key is one line of printable characters",
        variable));
  }
  return std::string(v);
}

}  // namespace pipette::endpoint
