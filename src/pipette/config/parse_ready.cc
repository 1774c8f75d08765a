#include "pipette/config/parse_ready.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "pipette/util/strings.h"

namespace pipette::config {

Result<CooldownSpec> ParseCooldown(const Where& w, const YAML::Node& node) {
  static const std::string kForms =
      "cooldown: is seconds, 'temperature', or {seconds: SECONDS, until: temperature}";
  CooldownSpec c;
  if (node.IsScalar()) {
    if (node.Scalar() == "temperature") {
      c.until_start_temperature = true;
      return c;
    }
    auto v = Number(w, node, "cooldown (seconds)", 0, 86400);
    if (!v) {
      const bool number = Number(w, node, "", -1e300, 1e300).ok();
      return number ? v.error() : w.At(node, kForms + ", not '" + node.Scalar() + "'");
    }
    c.seconds = *v;
    return c;
  }
  if (!node.IsMap()) return w.At(node, kForms);
  static const std::vector<std::string> kKeys = {"seconds", "until"};
  KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in cooldown: "); !st) return st.error();
    const std::string key = kv.first.Scalar();
    if (key == "seconds") {
      auto v = Number(w, kv.second, "cooldown: seconds", 0, 86400);
      if (!v) return v.error();
      c.seconds = *v;
    } else if (key == "until") {
      if (!kv.second.IsScalar() || kv.second.Scalar() != "temperature") {
        return w.At(kv.second, "cooldown: until is 'temperature' (back at the run's start)");
      }
      c.until_start_temperature = true;
    } else {
      return w.At(kv.first,
                  fmt::format("unknown key '{}' in cooldown:{}", key, DidYouMean(key, kKeys)));
    }
  }
  return c;
}

}  // namespace pipette::config
