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
  auto m = config::YamlMapping::Read(w, node, "ready",
                                     "ready: is true (the defaults) or a mapping {cpu_busy, "
                                     "temperature, window, deadline}");
  if (!m) return m.error();
  if (auto st = m->OnlyKeys({"cpu_busy", "temperature", "window", "deadline"}, " in ready:"); !st) {
    return st.error();
  }
  FieldReader& f = m->fields();
  if (f.Has("cpu_busy")) r.cpu_busy_max = f.Number("cpu_busy", 0, 100, "percent of all CPUs") / 100;
  if (f.Has("temperature")) r.temp_max_c = f.Number("temperature", 0, 150, "°C");
  if (f.Has("window")) r.window_s = f.Number("window", 0.1, 60, "seconds");
  if (f.Has("deadline")) r.deadline_s = f.Number("deadline", 0, 86400, "seconds");
  if (auto st = m->status(); !st) return st.error();
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
    auto lone = config::YamlMapping::Lone(w, node, "cooldown");
    if (!lone) return lone.error();
    FieldReader& f = lone->fields();
    if (!f.IsNumber("cooldown")) {
      return lone->At("cooldown", kForms + ", not '" + node.Scalar() + "'");
    }
    c.seconds = f.Number("cooldown", 0, 86400, "seconds");
    if (auto st = lone->status(); !st) return st.error();
    return c;
  }
  auto m = config::YamlMapping::Read(w, node, "cooldown", kForms);
  if (!m) return m.error();
  if (auto st = m->OnlyKeys({"seconds", "until"}, " in cooldown:"); !st) return st.error();
  FieldReader& f = m->fields();
  if (f.Has("seconds")) c.seconds = f.Number("seconds", 0, 86400);
  if (f.Has("until")) {
    if (f.String("until") != "temperature") {
      return m->At("until", "cooldown: until is 'temperature' (back at the run's start)");
    }
    c.until_start_temperature = true;
  }
  if (auto st = m->status(); !st) return st.error();
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
