#include "pipette/run/ready_section.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "pipette/util/strings.h"

namespace pipette::run {
namespace {

class ReadySection : public config::QualitySpecDef {
 public:
  std::string Name() const override { return "ready"; }
  Result<std::any> Parse(const config::Where& w, const YAML::Node& node) const override {
    auto r = ParseReady(w, node);
    if (!r) return r.error();
    return std::any(*r);
  }
  // Written, so part of what the file says (its hash): as the runner will use it.
  nlohmann::json Canonical(const std::any& written) const override {
    return std::any_cast<const ReadySpec&>(written).ToJson();
  }
  Result<std::any> Resolve(const config::Where&, const std::any& written,
                           const config::ResolveOptions&) const override {
    return written;
  }
  nlohmann::json Resolved(const std::any& resolved) const override {
    return std::any_cast<const ReadySpec&>(resolved).ToJson();
  }
};

}  // namespace

Result<ReadySpec> ParseReady(const config::Where& w, const YAML::Node& node) {
  ReadySpec r;
  if (node.IsScalar()) {
    if (node.Scalar() == "true") return r;
    return w.At(node,
                "ready: is true (the defaults) or a mapping {cpu_busy, temperature, window, "
                "deadline}");
  }
  if (!node.IsMap()) {
    return w.At(node,
                "ready: is true (the defaults) or a mapping {cpu_busy, temperature, window, "
                "deadline}");
  }
  static const std::vector<std::string> kKeys = {"cpu_busy", "temperature", "window", "deadline"};
  config::KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in ready: "); !st) return st.error();
    const std::string key = kv.first.Scalar();
    if (key == "cpu_busy") {
      auto v = config::Number(w, kv.second, "ready: cpu_busy (percent of all CPUs)", 0, 100);
      if (!v) return v.error();
      r.cpu_busy_max = *v / 100;
    } else if (key == "temperature") {
      auto v = config::Number(w, kv.second, "ready: temperature (°C)", 0, 150);
      if (!v) return v.error();
      r.temp_max_c = *v;
    } else if (key == "window") {
      auto v = config::Number(w, kv.second, "ready: window (seconds)", 0.1, 60);
      if (!v) return v.error();
      r.window_s = *v;
    } else if (key == "deadline") {
      auto v = config::Number(w, kv.second, "ready: deadline (seconds)", 0, 86400);
      if (!v) return v.error();
      r.deadline_s = *v;
    } else {
      return w.At(kv.first,
                  fmt::format("unknown key '{}' in ready:{}", key, DidYouMean(key, kKeys)));
    }
  }
  return r;
}

const config::QualitySpecDef& ReadySectionDef() {
  static const ReadySection def;
  return def;
}

const ReadySpec* ReadyOf(const config::Experiment& ex) {
  return ex.sections.Get<ReadySpec>(ReadySectionDef().Name());
}

void SetReady(config::Experiment* ex, const ReadySpec& spec) {
  ex->sections.Set(ReadySectionDef(), std::any(spec));
}

}  // namespace pipette::run
