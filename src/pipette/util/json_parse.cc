#include "pipette/util/json_parse.h"

#include <fmt/format.h>

namespace pipette {

Result<nlohmann::json> ParseJsonBounded(std::string_view text, std::string_view what,
                                        size_t max_depth) {
  using nlohmann::json;
  bool too_deep = false;
  // The parser itself is iterative; what it builds is not walked recursively until it is
  // returned. A value opened deeper than the limit is discarded as it is read (the callback's
  // false), so nothing deep is ever built, and the whole text is refused.
  const json::parser_callback_t bound = [&](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        static_cast<size_t>(depth) >= max_depth) {
      too_deep = true;
      return false;
    }
    return !too_deep;
  };
  json doc;
  try {
    doc = json::parse(text.begin(), text.end(), bound, /*allow_exceptions=*/true);
  } catch (const json::exception& e) {  // parse_error; out_of_range for a number past a double
    // e.what() holds the byte offset and what was expected; the text itself is not echoed.
    return InputError(fmt::format("{}: not JSON: {}", what, e.what()));
  }
  if (too_deep) {
    return InputError(fmt::format("{}: JSON nested deeper than {} levels of arrays and objects",
                                  what, max_depth));
  }
  return doc;
}

}  // namespace pipette
