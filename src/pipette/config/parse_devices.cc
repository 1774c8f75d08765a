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
                    const std::string& path, WrittenDevice* d) {
  if (node.IsNull()) return {};
  auto m = YamlMapping::Read(w, node, path,
                             fmt::format("{}: must be a mapping of its keys ({})", kind.name,
                                         fmt::join(kind.Keys(), ", ")));
  if (!m) return m.error();
  if (auto st = m->OnlyKeys(kind.Keys(), " in " + kind.name); !st) return st;
  FieldReader& f = m->fields();
  for (const std::string& key : m->keys()) {
    const device::DeviceOption* opt = kind.Find(key);
    const std::string what = kind.name + "." + key;
    d->option_pos[key] = m->PlaceOf(key);
    switch (opt->type) {
      case OptionType::kString:
      case OptionType::kPath: {
        const std::string s = f.String(key.c_str());
        if (f.ok() && s.empty()) f.FailAt(key.c_str(), what + ": empty");
        d->options[key] = s;
        break;
      }
      case OptionType::kInt:
        d->options[key] = f.Int(key.c_str(), 1, 65535);
        break;
      case OptionType::kStrings: {
        const std::vector<std::string> list = f.Strings(key.c_str());
        if (f.ok() && list.empty()) f.FailAt(key.c_str(), what + ": empty");
        d->options[key] = list;
        break;
      }
    }
    if (auto st = m->status(); !st) return st;
  }
  for (const device::DeviceOption& o : kind.options) {
    if (o.required && !d->options.contains(o.key)) {
      return m->Here(fmt::format("{}: needs '{}:' ({})", kind.name, o.key, o.doc));
    }
  }
  if (d->options.contains("emulator") && !d->options.contains("arch")) {
    return m->Here(
        fmt::format("{}: emulator: needs arch: too (the instruction set the worker "
                    "runs under the emulator: the board's own shell says another)",
                    kind.name));
  }
  if (d->options.contains("arch") && !PlainName(d->options["arch"].get<std::string>())) {
    return m->At("arch", fmt::format("{}.arch: '{}' is not an architecture name (x86_64, "
                                     "aarch64)",
                                     kind.name, d->options["arch"].get<std::string>()));
  }
  return {};
}

// `tier: {cpus: [0, 1], cpu_quota: 0.5, memory: 512MiB}`.
Status ParseTier(const Where& w, const YAML::Node& node, const std::string& path,
                 WrittenDevice* d) {
  static const std::string kShape =
      "tier: must be a mapping of one or more of cpus: [CPU numbers], cpu_quota: CPUs' worth of "
      "time (0.5), memory: a size (512MiB)";
  auto m = YamlMapping::Read(w, node, path, kShape);
  if (!m) return m.error();
  if (m->keys().empty()) return m->Here(kShape);
  if (auto st = m->OnlyKeys({"cpus", "cpu_quota", "memory"}, " in tier"); !st) return st;
  FieldReader& f = m->fields();
  json tier = json::object();
  if (f.Has("cpus")) {
    const std::vector<int64_t> cpus = f.Ints("cpus", 0, 4095);
    for (size_t i = 0; f.ok() && i < cpus.size(); ++i) {
      if (std::find(cpus.begin(), cpus.begin() + static_cast<std::ptrdiff_t>(i), cpus[i]) !=
          cpus.begin() + static_cast<std::ptrdiff_t>(i)) {
        f.FailAt("cpus", i, fmt::format("tier.cpus: CPU {} is listed twice", cpus[i]));
      }
    }
    if (f.ok() && cpus.empty()) {
      f.FailAt("cpus", "tier.cpus: empty (list the CPUs by number: [0])");
    }
    tier["cpus"] = cpus;
  }
  if (f.Has("cpu_quota")) {
    tier["cpu_quota"] = f.Number("cpu_quota", 0.01, 4096, "CPUs' worth of time per period");
  }
  if (auto st = m->status(); !st) return st;
  if (f.Has("memory")) {
    const std::string text = f.String("memory");
    if (auto st = m->status(); !st) return st;
    auto bytes = ParseBytes(text);
    if (!bytes) {
      return m->At("memory", fmt::format("tier.memory: '{}' is not a size (write 512MiB, 1.5GiB, "
                                         "800MB or a number of bytes)",
                                         text));
    }
    if (*bytes < (int64_t{4} << 20)) {
      return m->At("memory",
                   fmt::format("tier.memory: {} is under 4 MiB: no worker starts in it", text));
    }
    tier["memory_bytes"] = *bytes;
  }
  d->tier = std::move(tier);
  return {};
}

Result<WrittenDevice> ParseDevice(const Where& w, const YAML::Node& node, const std::string& path,
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
  auto m =
      YamlMapping::Read(w, node, path, "a device is `local` or a mapping {name: ..., ssh: {...}}");
  if (!m) return m.error();
  std::vector<std::string> known = {"name", "tier"};
  for (const std::string& k : kinds.Names()) known.push_back(k);
  if (auto st = m->OnlyKeys(known, " in a device"); !st) return st.error();
  FieldReader& f = m->fields();
  for (const std::string& key : m->keys()) {
    if (key == "name") {
      const std::string name = f.String("name");
      if (auto st = m->status(); !st) return st.error();
      if (!PlainName(name)) {
        return m->At("name", fmt::format("device name '{}': use letters, digits, '.', '_' and "
                                         "'-' only (it names the device in --only and tables)",
                                         name));
      }
      d.name = name;
    } else if (key == "tier") {
      if (auto st = ParseTier(w, m->Node(key), path + ".tier", &d); !st) return st.error();
    } else {
      if (!d.kind.empty()) {
        return m->AtKey(
            key, fmt::format("a device is of one kind: '{}' and '{}' both given", d.kind, key));
      }
      d.kind = key;
      if (auto st = ParseOptions(w, *kinds.Find(key), m->Node(key), path + "." + key, &d); !st) {
        return st.error();
      }
    }
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
                                                const std::string& key,
                                                const device::DeviceKindRegistry& kinds) {
  std::vector<WrittenDevice> out;
  if (node.IsNull() || (node.IsSequence() && node.size() == 0)) {
    return w.At(node, "devices: needs at least one device (`local` is this machine)");
  }
  const std::vector<YAML::Node> entries = AsList(node);
  for (size_t i = 0; i < entries.size(); ++i) {
    const YAML::Node& n = entries[i];
    auto d =
        ParseDevice(w, n, node.IsSequence() ? key + "[" + std::to_string(i) + "]" : key, kinds);
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
