#include "pipette/run/ready_section.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "pipette/util/strings.h"

namespace pipette::run {
namespace {

// A section whose value is the same written and resolved: parsed by `parse`, written as its
// ToJson() in the canonical (hashed) and the resolved form alike.
template <class Spec, Result<Spec> (*parse)(const config::Where&, const YAML::Node&)>
class PlainSection : public config::SpecDef {
 public:
  explicit PlainSection(std::string name) : name_(std::move(name)) {}
  std::string Name() const override { return name_; }
  Result<std::any> Parse(const config::Where& w, const YAML::Node& node) const override {
    auto r = parse(w, node);
    if (!r) return r.error();
    return std::any(*r);
  }
  // Written, so part of what the file says (its hash): as the runner will use it.
  nlohmann::json Canonical(const std::any& written) const override {
    return std::any_cast<const Spec&>(written).ToJson();
  }
  Result<std::any> Resolve(const config::Where&, const std::any& written,
                           const config::ResolveOptions&) const override {
    return written;
  }
  nlohmann::json Resolved(const std::any& resolved) const override {
    return std::any_cast<const Spec&>(resolved).ToJson();
  }

 private:
  std::string name_;
};

}  // namespace

Result<ReadySpec> ParseReady(const config::Where& w, const YAML::Node& node) {
  ReadySpec r;
  if (node.IsScalar() && node.Scalar() == "true") return r;
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

Result<CooldownSpec> ParseCooldown(const config::Where& w, const YAML::Node& node) {
  static const std::string kForms =
      "cooldown: is seconds, 'temperature', or {seconds: SECONDS, until: temperature}";
  CooldownSpec c;
  if (node.IsScalar()) {
    if (node.Scalar() == "temperature") {
      c.until_start_temperature = true;
      return c;
    }
    auto v = config::Number(w, node, "cooldown (seconds)", 0, 86400);
    if (!v) {
      const bool number = config::Number(w, node, "", -1e300, 1e300).ok();
      return number ? v.error() : w.At(node, kForms + ", not '" + node.Scalar() + "'");
    }
    c.seconds = *v;
    return c;
  }
  if (!node.IsMap()) return w.At(node, kForms);
  static const std::vector<std::string> kKeys = {"seconds", "until"};
  config::KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in cooldown: "); !st) return st.error();
    const std::string key = kv.first.Scalar();
    if (key == "seconds") {
      auto v = config::Number(w, kv.second, "cooldown: seconds", 0, 86400);
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

const config::SpecDef& ReadySectionDef() {
  static const PlainSection<ReadySpec, ParseReady> def("ready");
  return def;
}

const config::SpecDef& CooldownSectionDef() {
  static const PlainSection<CooldownSpec, ParseCooldown> def("cooldown");
  return def;
}

const ReadySpec* ReadyOf(const config::Experiment& ex) {
  return ex.sections.Get<ReadySpec>(ReadySectionDef().Name());
}

CooldownSpec CooldownOf(const config::Experiment& ex) {
  const CooldownSpec* c = ex.sections.Get<CooldownSpec>(CooldownSectionDef().Name());
  return c ? *c : CooldownSpec{};
}

void SetReady(config::Experiment* ex, const ReadySpec& spec) {
  ex->sections.Set(ReadySectionDef(), std::any(spec));
}

void SetCooldown(config::Experiment* ex, const CooldownSpec& spec) {
  ex->sections.Set(CooldownSectionDef(), std::any(spec));
}

}  // namespace pipette::run
