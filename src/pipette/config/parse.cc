#include "pipette/config/parse.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "pipette/config/parse_convert.h"
#include "pipette/config/parse_devices.h"
#include "pipette/config/parse_endpoint.h"
#include "pipette/config/parse_workloads.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/runtime/registry.h"
#include "pipette/util/strings.h"
#include "pipette/util/utf8.h"

namespace pipette::config {
namespace {

const std::vector<std::string> kTopKeys = {
    "quality", "name",    "description", "models",   "runtime",     "runtimes",
    "device",  "devices", "params",      "tests",    "repetitions", "warmup",
    "timeout", "seed",    "store",       "quantize", "convert"};

// The name of a list's item written as a lone scalar ("- smollm2"), as a string field of its own.
Result<std::string> LoneName(const Where& w, const YAML::Node& node, const std::string& path) {
  auto lone = YamlMapping::Lone(w, node, path);
  if (!lone) return lone.error();
  std::string name = lone->fields().String(path.c_str());
  if (auto st = lone->status(); !st) return st.error();
  return name;
}

// An item's path in problems: "models[1]", or "models" where the key holds one item.
std::string ItemPath(const std::string& key, const YAML::Node& list, size_t i) {
  return list.IsSequence() ? key + "[" + std::to_string(i) + "]" : key;
}

Result<WrittenModel> ParseModel(const Where& w, const YAML::Node& node, const std::string& path) {
  WrittenModel m;
  m.pos = PosOf(node);
  if (!node.IsMap()) {
    auto name = LoneName(w, node, path);
    if (!name) return name.error();
    m.ref = *name;
    return m;
  }
  auto entry = YamlMapping::Read(w, node, path, "");
  if (!entry) return entry.error();
  if (auto st = entry->OnlyKeys({"path", "name"}, " in a model"); !st) return st.error();
  FieldReader& f = entry->fields();
  m.ref = f.String("path", "");
  if (f.Has("name")) m.name = f.String("name");
  if (auto st = entry->status(); !st) return st.error();
  if (m.ref.empty()) return entry->Here("a model needs 'path:'");
  return m;
}

Result<WrittenRuntime> ParseRuntime(const Where& w, const YAML::Node& node, const std::string& path,
                                    const runtime::RuntimeRegistry& runtimes) {
  WrittenRuntime r;
  r.pos = PosOf(node);
  if (!node.IsMap()) {
    auto name = LoneName(w, node, path);
    if (!name) return name.error();
    r.name = *name;
    r.name_pos = PosOf(node);
    auto rt = runtimes.Lookup(r.name);
    if (!rt) return w.At(node, rt.error().message);
    if ((*rt)->IsEndpoint()) {
      if (auto st = CheckEndpoint(w.PlaceOf(node), {}); !st) {
        return st.error();
      }
    }
    return r;
  }
  auto entry = YamlMapping::Read(w, node, path, "");
  if (!entry) return entry.error();
  std::vector<std::string> known = {"name", "worker"};
  known.insert(known.end(), EndpointKeys().begin(), EndpointKeys().end());
  for (const std::string& key : entry->keys()) {  // api_key gets its own word, below
    if (key != "api_key" && std::find(known.begin(), known.end(), key) == known.end()) {
      return entry->AtKey(
          key, fmt::format("unknown key '{}' in a runtime{}", key, DidYouMean(key, known)));
    }
  }
  FieldReader& f = entry->fields();
  if (!entry->Has("name")) return entry->Here("a runtime needs 'name:'");
  r.name = f.String("name");
  r.name_pos = entry->PlaceOf("name");
  if (entry->Has("worker")) r.worker = f.String("worker");
  if (auto st = entry->status(); !st) return st.error();
  auto rt = runtimes.Lookup(r.name);
  if (!rt) return entry->At("name", rt.error().message);
  WrittenEndpoint endpoint;
  std::optional<std::string> first_endpoint_key;  // the first endpoint key written
  for (const std::string& key : entry->keys()) {
    if (key == "name" || key == "worker") continue;
    if (!first_endpoint_key) first_endpoint_key = key;
    if (key == "api_key" || (*rt)->IsEndpoint()) {
      if (auto st = ParseEndpointKey(w, *entry, key, path, &endpoint); !st) return st.error();
    }
  }
  if ((*rt)->IsEndpoint()) {
    if (r.worker) {
      return entry->Here(
          fmt::format("runtime '{}' is reached over HTTP and has no worker program: "
                      "give base_url: or server:",
                      r.name));
    }
    if (auto st = CheckEndpoint(entry->place(), endpoint); !st) return st.error();
    endpoint.line = r.pos.line;
    r.endpoint = std::move(endpoint);
  } else if (first_endpoint_key) {
    return entry->AtKey(
        *first_endpoint_key,
        fmt::format("'{}' is a key of an endpoint runtime (one reached over HTTP, such as "
                    "openai); runtime '{}' runs a worker program",
                    *first_endpoint_key, r.name));
  }
  return r;
}

// One parameter of params: (its values: one or a list) from the params mapping's fields.
Result<WrittenParam> ParseParam(YamlMapping& params, const std::string& name,
                                const runtime::ParamRegistry& registry) {
  WrittenParam p;
  p.name = name;
  p.pos = params.KeyPlaceOf(name);
  const runtime::ParamDef* def = registry.Find(p.name);
  if (!def) {
    return params.AtKey(
        name, fmt::format("unknown parameter '{}'{}", p.name, registry.DidYouMean(p.name)));
  }
  FieldReader& f = params.fields();
  const std::vector<std::string> values = f.Strings(name.c_str());
  if (auto st = f.status(); !st) return st.error();
  if (values.empty()) return params.At(name, fmt::format("{}: empty list", p.name));
  for (size_t i = 0; i < values.size(); ++i) {
    auto parsed = registry.Parse(*def, values[i]);
    if (!parsed) return f.PlaceOf(name.c_str(), i).Fail(parsed.error().message);
    if (std::find(p.values.begin(), p.values.end(), *parsed) == p.values.end()) {
      p.values.push_back(*parsed);
    }
  }
  return p;
}

// tests: (one or a list) from the top level's fields.
Status ParseTests(FieldReader& top, const TestGrammar& grammar, std::vector<TestSpec>* tests) {
  const std::vector<std::string> names = top.Strings("tests");
  if (auto st = top.status(); !st) return st;
  for (size_t i = 0; i < names.size(); ++i) {
    const Place at = top.PlaceOf("tests", i);
    if (!grammar) return at.Fail("no test kinds are known to this parser");
    auto t = grammar(names[i]);
    if (!t) return at.Fail(t.error().message);
    t->line = at.line;
    for (const auto& other : *tests) {
      if (other.name == t->name) {
        return at.Fail(
            fmt::format("test {} is listed twice (first at line {})", t->name, other.line));
      }
    }
    tests->push_back(*t);
  }
  if (tests->empty()) return top.PlaceOf("tests").Fail("tests: needs at least one test");
  return {};
}

// The first byte YAML does not allow in a file (a C0 control other than tab, line feed and
// carriage return, or DEL), as 0-based (line, column, byte); nullopt if there is none. yaml-cpp
// turns a NUL into text that is not UTF-8.
std::optional<std::tuple<int, int, unsigned>> ControlCharacter(std::string_view text) {
  int line = 0;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    } else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
      return std::make_tuple(line, static_cast<int>(i - line_start), unsigned(c));
    }
  }
  return std::nullopt;
}

// The tab nearest before or on line `last` (0-based) that sits in a line's indentation, as
// 0-based (line, column); nullopt if there is none. Only lines with something after their
// indentation count.
std::optional<std::pair<int, int>> TabInIndentation(std::string_view text, int last) {
  std::optional<std::pair<int, int>> found;
  int line = 0;
  for (size_t begin = 0; begin <= text.size() && line <= last; ++line) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(begin, end - begin);
    const size_t content = l.find_first_not_of(" \t\r");
    const size_t tab = l.find('\t');
    if (content != std::string_view::npos && tab < content) {
      found = std::make_pair(line, static_cast<int>(tab));
    }
    begin = end + 1;
  }
  return found;
}

// One key of the top level into `ex`.
Status ParseTopKey(const Where& w, YamlMapping& top, const std::string& key,
                   const runtime::ParamRegistry& registry, const SpecRegistry& specs,
                   const runtime::RuntimeRegistry& runtimes, WrittenExperiment* ex,
                   bool* have_models, bool* have_tests) {
  FieldReader& f = top.fields();
  const YAML::Node v = top.Node(key);
  if ((key == "device" || key == "devices") &&
      !(key == "device" && v.IsScalar() && v.Scalar() == "local")) {
    // `device: local` (files older than devices:) stays as written; anything else is a list.
    if (ex->device || !ex->devices.empty()) {
      return top.AtKey(key, "give either 'device:' or 'devices:', not both");
    }
    if (!specs.devices()) return top.AtKey(key, "no device kinds are known to this parser");
    auto devices = ParseDevices(w, v, key, *specs.devices());
    if (!devices) return devices.error();
    ex->devices = std::move(*devices);
  } else if (key == "name" || key == "description" || key == "store" || key == "device") {
    const std::string s = f.String(key.c_str());
    if (auto st = f.status(); !st) return st;
    if (key == "device" && !ex->devices.empty()) {
      return top.AtKey(key, "give either 'device:' or 'devices:', not both");
    }
    (key == "name"          ? ex->name
     : key == "description" ? ex->description
     : key == "store"       ? ex->store
                            : ex->device) = s;
  } else if (key == "models") {
    *have_models = true;
    if (v.IsNull() || (v.IsSequence() && v.size() == 0)) {
      return (v.IsNull() ? top.KeyPlaceOf(key) : top.PlaceOf(key))
          .Fail("models: needs at least one model");
    }
    const std::vector<YAML::Node> items = AsList(v);
    for (size_t i = 0; i < items.size(); ++i) {
      auto m = ParseModel(w, items[i], ItemPath(key, v, i));
      if (!m) return m.error();
      ex->models.push_back(std::move(*m));
    }
  } else if (key == "runtime" || key == "runtimes") {
    if (!ex->runtimes.empty()) {
      return top.AtKey(key, "give either 'runtime:' or 'runtimes:', not both");
    }
    const std::vector<YAML::Node> items = AsList(v);
    for (size_t i = 0; i < items.size(); ++i) {
      auto r = ParseRuntime(w, items[i], ItemPath(key, v, i), runtimes);
      if (!r) return r.error();
      ex->runtimes.push_back(std::move(*r));
    }
  } else if (key == "params") {
    auto params = YamlMapping::Read(w, v, "params",
                                    "params: must be a mapping of parameter: value or [values]");
    if (!params) return params.error();
    for (const std::string& name : params->keys()) {
      auto param = ParseParam(*params, name, registry);
      if (!param) return param.error();
      ex->params.push_back(std::move(*param));
    }
  } else if (key == "quality") {
    return ParseQuality(w, v, specs, ex);
  } else if (key == "quantize") {
    if (v.IsNull()) return {};
    auto q = ParseQuantize(w, v);
    if (!q) return q.error();
    ex->quantize = std::move(*q);
  } else if (key == "convert") {
    if (v.IsNull()) return {};
    auto c = ParseConvert(w, v);
    if (!c) return c.error();
    ex->convert = std::move(*c);
  } else if (key == "tests") {
    *have_tests = true;
    return ParseTests(f, specs.tests(), &ex->tests);
  } else if (key == "repetitions" || key == "warmup") {
    const int n = static_cast<int>(f.Int(key.c_str(), key == "warmup" ? 0 : 1, 100000));
    (key == "warmup" ? ex->warmup : ex->repetitions) = n;
  } else if (const SpecDef* section = specs.FindSection(key)) {
    // A section its owner defines (select:): parsed by its def, held without its type.
    auto spec = section->Parse(w, v);
    if (!spec) return spec.error();
    ex->sections.Set(*section, std::move(*spec));
  } else if (key == "timeout") {
    ex->timeout = static_cast<int>(f.Int("timeout", 1, 7 * 24 * 3600));
  } else if (key == "seed") {
    ex->seed = static_cast<uint64_t>(f.Int("seed", 0, INT64_MAX));
  } else if (registry.Find(key)) {
    return top.AtKey(key, fmt::format("'{}' is a runtime parameter: put it under 'params:'", key));
  } else if (const runtime::ParamDef* alias = registry.FindAlias(key)) {
    return top.AtKey(key, fmt::format("unknown key '{}': the runtime parameter is '{}', under "
                                      "'params:'",
                                      key, alias->name));
  } else {
    std::vector<std::string> keys = kTopKeys;
    for (const SpecDef* d : specs.sections()) keys.push_back(d->Name());
    return top.AtKey(key, fmt::format("unknown key '{}'{}", key, DidYouMean(key, keys)));
  }
  return f.status();
}

// Workloads that compare with a reference model name the same one (it runs first), and each
// workload's checks against the others.
Status CheckQualityAcross(const Where& w, const QualitySpecs& quality) {
  const QualitySpec* first = nullptr;
  for (const QualitySpec& q : quality.all()) {
    auto ref = q.def->Reference(q.value);
    if (!ref) continue;
    if (!first) {
      first = &q;
    } else if (*first->def->Reference(first->value) != *ref) {
      return w.File(fmt::format(
          "{} and {} name different references ('{}', '{}'): the reference runs first, so they "
          "must be the same model",
          first->name, q.name, *first->def->Reference(first->value), *ref));
    }
  }
  for (const QualitySpec& q : quality.all()) {
    if (auto st = q.def->CheckWritten(w, quality); !st) return st;
  }
  return {};
}

}  // namespace

Result<WrittenExperiment> ParseExperiment(const std::string& text, const std::string& path,
                                          const runtime::ParamRegistry& registry,
                                          const SpecRegistry& specs,
                                          const runtime::RuntimeRegistry& runtimes) {
  Where w(path);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return w.File("the experiment file is empty (it needs at least models: and tests:)");
  }
  // YAML is Unicode text: a byte that is not UTF-8 would reach the store's JSON, which refuses it.
  if (auto bad = FirstInvalidUtf8(text)) return NotUtf8Error(path, text, *bad);
  if (auto control = ControlCharacter(text)) {
    const auto [line, column, byte] = *control;
    return w.At(PlaceAt(line, column),
                fmt::format("a control character (byte 0x{:02X}) is not allowed in YAML", byte));
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp's words for a tab in the indentation ("illegal map value", ...) do not say so.
    if (auto tab = TabInIndentation(text, e.mark.line)) {
      return w.At(PlaceAt(tab->first, tab->second),
                  "a tab in the indentation: YAML indents with spaces");
    }
    return w.At(PlaceAt(e.mark.line, e.mark.column), "malformed YAML: " + e.msg);
  }
  if (!root.IsMap()) return w.File("an experiment file must be a YAML mapping (key: value)");
  if (auto st = CheckTree(w, root); !st) return st.error();

  auto top = YamlMapping::Read(w, root, "", "");
  if (!top) return top.error();
  WrittenExperiment ex;
  ex.path = path;
  ex.source_text = text;
  bool have_models = false, have_tests = false;
  for (const std::string& key : top->keys()) {
    if (auto st =
            ParseTopKey(w, *top, key, registry, specs, runtimes, &ex, &have_models, &have_tests);
        !st) {
      return st.error();
    }
  }
  if (!have_models && ex.quantize.empty() && ex.convert.empty()) {
    return w.File(
        "missing 'models:' (a list of bundled names or .gguf paths), 'quantize:' or 'convert:'");
  }
  if (auto st = CheckQualityAcross(w, ex.quality); !st) return st.error();
  if (!have_tests && ex.quality.empty()) {
    return w.File("missing 'tests:' (for example [pp512, tg128, ttft@256]) or 'quality:'");
  }
  return ex;
}

}  // namespace pipette::config
