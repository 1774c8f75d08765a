#include "pipette/config/parse_devices.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "pipette/device/registry.h"
#include "pipette/util/strings.h"

namespace pipette::config {
namespace {

namespace fs = std::filesystem;
using device::OptionType;
using nlohmann::json;

bool PlainName(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

Status ParseOptions(const Where& w, const device::DeviceKind& kind, const YAML::Node& node,
                    WrittenDevice* d) {
  if (node.IsNull()) return {};
  if (!node.IsMap()) {
    return w.At(node, fmt::format("{}: must be a mapping of its keys ({})", kind.name,
                                  fmt::join(kind.Keys(), ", ")));
  }
  KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in " + kind.name + " "); !st) return st;
    const std::string key = kv.first.Scalar();
    const device::DeviceOption* opt = kind.Find(key);
    if (!opt) {
      return w.At(kv.first, fmt::format("unknown key '{}' in {}{}", key, kind.name,
                                        DidYouMean(key, kind.Keys())));
    }
    const std::string what = kind.name + "." + key;
    d->option_pos[key] = PosOf(kv.second);
    switch (opt->type) {
      case OptionType::kString:
      case OptionType::kPath: {
        auto s = Scalar(w, kv.second, what);
        if (!s) return s.error();
        if (s->empty()) return w.At(kv.second, what + ": empty");
        d->options[key] = *s;
        break;
      }
      case OptionType::kInt: {
        auto n = Integer(w, kv.second, what, 1, 65535);
        if (!n) return n.error();
        d->options[key] = *n;
        break;
      }
      case OptionType::kStrings: {
        json list = json::array();
        for (const YAML::Node& n : AsList(kv.second)) {
          auto s = Scalar(w, n, what);
          if (!s) return s.error();
          list.push_back(*s);
        }
        if (list.empty()) return w.At(kv.second, what + ": empty");
        d->options[key] = std::move(list);
        break;
      }
    }
  }
  for (const device::DeviceOption& o : kind.options) {
    if (o.required && !d->options.contains(o.key)) {
      return w.At(node, fmt::format("{}: needs '{}:' ({})", kind.name, o.key, o.doc));
    }
  }
  if (d->options.contains("emulator") && !d->options.contains("arch")) {
    return w.At(node, fmt::format("{}: emulator: needs arch: too (the instruction set the worker "
                                  "runs under the emulator: the board's own shell says another)",
                                  kind.name));
  }
  if (d->options.contains("arch") && !PlainName(d->options["arch"].get<std::string>())) {
    return w.At(node["arch"], fmt::format("{}.arch: '{}' is not an architecture name (x86_64, "
                                          "aarch64)",
                                          kind.name, d->options["arch"].get<std::string>()));
  }
  return {};
}

// `tier: {cpus: [0, 1], cpu_quota: 0.5, memory: 512MiB}`.
Status ParseTier(const Where& w, const YAML::Node& node, WrittenDevice* d) {
  const std::vector<std::string> keys_known = {"cpus", "cpu_quota", "memory"};
  if (!node.IsMap() || node.size() == 0) {
    return w.At(node,
                "tier: must be a mapping of one or more of cpus: [CPU numbers], cpu_quota: "
                "CPUs' worth of time (0.5), memory: a size (512MiB)");
  }
  KeySet keys;
  json tier = json::object();
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in tier "); !st) return st;
    const std::string key = kv.first.Scalar();
    if (key == "cpus") {
      json cpus = json::array();
      for (const YAML::Node& n : AsList(kv.second)) {
        auto c = Integer(w, n, "tier.cpus[]", 0, 4095);
        if (!c) return c.error();
        if (std::find(cpus.begin(), cpus.end(), json(*c)) != cpus.end()) {
          return w.At(n, fmt::format("tier.cpus: CPU {} is listed twice", *c));
        }
        cpus.push_back(*c);
      }
      if (cpus.empty()) return w.At(kv.second, "tier.cpus: empty (list the CPUs by number: [0])");
      tier["cpus"] = std::move(cpus);
    } else if (key == "cpu_quota") {
      auto q = Number(w, kv.second, "tier.cpu_quota (CPUs' worth of time per period)", 0.01, 4096);
      if (!q) return q.error();
      tier["cpu_quota"] = *q;
    } else if (key == "memory") {
      auto text = Scalar(w, kv.second, "tier.memory");
      if (!text) return text.error();
      auto bytes = ParseBytes(*text);
      if (!bytes) {
        return w.At(kv.second, fmt::format("tier.memory: '{}' is not a size (write 512MiB, 1.5GiB, "
                                           "800MB or a number of bytes)",
                                           *text));
      }
      if (*bytes < (int64_t{4} << 20)) {
        return w.At(kv.second,
                    fmt::format("tier.memory: {} is under 4 MiB: no worker starts in it", *text));
      }
      tier["memory_bytes"] = *bytes;
    } else {
      return w.At(kv.first,
                  fmt::format("unknown key '{}' in tier{}", key, DidYouMean(key, keys_known)));
    }
  }
  d->tier = std::move(tier);
  return {};
}

Result<WrittenDevice> ParseDevice(const Where& w, const YAML::Node& node,
                                  const device::DeviceKindRegistry& kinds) {
  WrittenDevice d;
  d.pos = PosOf(node);
  if (node.IsScalar()) {
    if (node.Scalar() == "local") {
      d.kind = "local";
      return d;
    }
    return w.At(node, fmt::format("device '{}' is not known: write `local`, or a named device "
                                  "such as {{name: board, ssh: {{host: 10.0.0.2}}}} (kinds: {})",
                                  node.Scalar(), fmt::join(kinds.Names(), ", ")));
  }
  if (!node.IsMap()) {
    return w.At(node, "a device is `local` or a mapping {name: ..., ssh: {...}}");
  }
  std::vector<std::string> known = {"name", "tier"};
  for (const std::string& k : kinds.Names()) known.push_back(k);
  KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in a device "); !st) return st.error();
    const std::string key = kv.first.Scalar();
    if (key == "name") {
      auto s = Scalar(w, kv.second, "devices[].name");
      if (!s) return s.error();
      if (!PlainName(*s)) {
        return w.At(kv.second, fmt::format("device name '{}': use letters, digits, '.', '_' and "
                                           "'-' only (it names the device in --only and tables)",
                                           *s));
      }
      d.name = *s;
      continue;
    }
    if (key == "tier") {
      if (auto st = ParseTier(w, kv.second, &d); !st) return st.error();
      continue;
    }
    const device::DeviceKind* kind = kinds.Find(key);
    if (!kind) {
      return w.At(kv.first,
                  fmt::format("unknown key '{}' in a device{}", key, DidYouMean(key, known)));
    }
    if (!d.kind.empty()) {
      return w.At(kv.first,
                  fmt::format("a device is of one kind: '{}' and '{}' both given", d.kind, key));
    }
    d.kind = key;
    if (auto st = ParseOptions(w, *kind, kv.second, &d); !st) return st.error();
  }
  if (d.kind.empty()) {
    return w.At(node,
                fmt::format("a device needs its kind: one of {}", fmt::join(kinds.Names(), ", ")));
  }
  if (d.kind == "local" && d.tier.is_null() && d.name && *d.name != "local") {
    return w.At(node,
                "the local device is named `local` (a tier of it, with `tier:`, is named "
                "otherwise)");
  }
  if (!d.tier.is_null() && (!d.name || *d.name == "local")) {
    return w.At(node,
                "a device with a tier needs a name of its own (name: low): its results are "
                "another device's");
  }
  if (d.kind != "local" && d.name == "local") {
    return w.At(node, "`local` names this machine: give the device another name");
  }
  if (d.kind != "local" && !d.name) {
    return w.At(node,
                fmt::format("a {} device needs name: (how --only and the tables call it)", d.kind));
  }
  return d;
}

}  // namespace

Result<std::vector<WrittenDevice>> ParseDevices(const Where& w, const YAML::Node& node,
                                                const device::DeviceKindRegistry& kinds) {
  std::vector<WrittenDevice> out;
  if (node.IsNull() || (node.IsSequence() && node.size() == 0)) {
    return w.At(node, "devices: needs at least one device (`local` is this machine)");
  }
  const std::vector<YAML::Node> entries =
      node.IsSequence() ? AsList(node) : std::vector<YAML::Node>{node};
  for (const YAML::Node& n : entries) {
    auto d = ParseDevice(w, n, kinds);
    if (!d) return d.error();
    const std::string name = d->name.value_or(d->kind);
    for (const WrittenDevice& other : out) {
      if (other.name.value_or(other.kind) == name) {
        return w.At(
            n, fmt::format("device '{}' is listed twice (first at line {})", name, other.pos.line));
      }
    }
    out.push_back(std::move(*d));
  }
  return out;
}

Result<std::vector<DeviceSpec>> ResolveDevices(const Where& w,
                                               const std::vector<WrittenDevice>& written,
                                               const device::DeviceKindRegistry& kinds) {
  std::vector<DeviceSpec> out;
  for (const WrittenDevice& d : written) {
    DeviceSpec s;
    s.kind = d.kind;
    s.name = d.name.value_or(d.kind);
    s.line = d.pos.line;
    s.options = d.options;
    s.tier = d.tier;
    const device::DeviceKind* kind = kinds.Find(d.kind);
    for (const device::DeviceOption& o :
         kind ? kind->options : std::vector<device::DeviceOption>{}) {
      if (o.type != OptionType::kPath || !s.options.contains(o.key)) continue;
      std::string v = s.options[o.key].get<std::string>();
      if (v.starts_with("~/")) {
        const char* home = std::getenv("HOME");
        if (home && *home) v = std::string(home) + v.substr(1);
      }
      fs::path p(v);
      if (p.is_relative()) p = fs::path(w.path()).parent_path() / p;
      p = fs::absolute(p).lexically_normal();
      const Place& place = d.option_pos.at(o.key);
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) {
        return w.At(place, fmt::format("{}.{}: no such file: {}", d.kind, o.key, p.string()));
      }
      s.options[o.key] = p.string();
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string DeviceSpec::Address() const {
  if (kind == "ssh") {
    const std::string user = options.value("user", "");
    return fmt::format("ssh {}{}:{}", user.empty() ? "" : user + "@", options.value("host", ""),
                       options.value("port", 22));
  }
  if (kind == "adb") return fmt::format("adb {}", options.value("serial", "(the only device)"));
  return kind;
}

json DeviceSpec::ToJson() const {
  json j = {{"name", name}, {"kind", kind}, {"options", options}};
  if (!tier.is_null()) j["tier"] = tier;
  return j;
}

}  // namespace pipette::config
