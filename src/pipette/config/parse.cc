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

Result<WrittenModel> ParseModel(const Where& w, const YAML::Node& node) {
  WrittenModel m;
  m.pos = PosOf(node);
  if (node.IsMap()) {
    KeySet keys;
    for (const auto& kv : node) {
      if (auto st = keys.Add(w, kv.first, "in a model "); !st) return st.error();
      const std::string key = kv.first.Scalar();
      if (key == "path") {
        auto s = Scalar(w, kv.second, "models[].path");
        if (!s) return s.error();
        m.ref = *s;
      } else if (key == "name") {
        auto s = Scalar(w, kv.second, "models[].name");
        if (!s) return s.error();
        m.name = *s;
      } else {
        return w.At(kv.first, fmt::format("unknown key '{}' in a model{}", key,
                                          DidYouMean(key, {"path", "name"})));
      }
    }
    if (m.ref.empty()) return w.At(node, "a model needs 'path:'");
  } else {
    auto s = Scalar(w, node, "a model");
    if (!s) return s.error();
    m.ref = *s;
  }
  return m;
}

Result<WrittenRuntime> ParseRuntime(const Where& w, const YAML::Node& node,
                                    const runtime::RuntimeRegistry& runtimes) {
  WrittenRuntime r;
  r.pos = PosOf(node);
  YAML::Node name_node = node;
  WrittenEndpoint endpoint;
  std::optional<YAML::Node> first_endpoint_key;  // where an endpoint key was written
  if (node.IsMap()) {
    KeySet keys;
    std::vector<std::string> known = {"name", "worker"};
    known.insert(known.end(), EndpointKeys().begin(), EndpointKeys().end());
    for (const auto& kv : node) {
      if (auto st = keys.Add(w, kv.first, "in a runtime "); !st) return st.error();
      const std::string key = kv.first.Scalar();
      if (key == "name") {
        name_node.reset(kv.second);  // rebinds: `=` would overwrite `node` itself
      } else if (key == "worker") {
        auto s = Scalar(w, kv.second, "runtimes[].worker");
        if (!s) return s.error();
        r.worker = *s;
      } else if (key == "api_key" || std::find(EndpointKeys().begin(), EndpointKeys().end(), key) !=
                                         EndpointKeys().end()) {
        if (auto st = ParseEndpointKey(w, kv.first, kv.second, &endpoint); !st) return st.error();
        if (!first_endpoint_key) first_endpoint_key = kv.first;
      } else {
        return w.At(kv.first,
                    fmt::format("unknown key '{}' in a runtime{}", key, DidYouMean(key, known)));
      }
    }
    if (name_node.IsMap()) return w.At(node, "a runtime needs 'name:'");
  }
  auto s = Scalar(w, name_node, "a runtime");
  if (!s) return s.error();
  r.name = *s;
  r.name_pos = PosOf(name_node);
  auto rt = runtimes.Lookup(r.name);
  if (!rt) return w.At(name_node, rt.error().message);
  if ((*rt)->IsEndpoint()) {
    if (r.worker) {
      return w.At(node, fmt::format("runtime '{}' is reached over HTTP and has no worker program: "
                                    "give base_url: or server:",
                                    r.name));
    }
    if (auto st = CheckEndpoint(w, node, endpoint); !st) return st.error();
    endpoint.line = r.pos.line;
    r.endpoint = std::move(endpoint);
  } else if (first_endpoint_key) {
    return w.At(*first_endpoint_key,
                fmt::format("'{}' is a key of an endpoint runtime (one reached over HTTP, such as "
                            "openai); runtime '{}' runs a worker program",
                            first_endpoint_key->Scalar(), r.name));
  }
  return r;
}

Result<WrittenParam> ParseParam(const Where& w, const YAML::Node& key, const YAML::Node& value,
                                const runtime::ParamRegistry& registry) {
  WrittenParam p;
  p.name = key.Scalar();
  p.pos = PosOf(key);
  const runtime::ParamDef* def = registry.Find(p.name);
  if (!def) {
    return w.At(key, fmt::format("unknown parameter '{}'{}", p.name, registry.DidYouMean(p.name)));
  }
  if (value.IsSequence() && value.size() == 0) {
    return w.At(value, fmt::format("{}: empty list", p.name));
  }
  for (const YAML::Node& n : AsList(value)) {
    auto s = Scalar(w, n, p.name);
    if (!s) return s.error();
    auto parsed = registry.Parse(*def, *s);
    if (!parsed) return w.At(n, parsed.error().message);
    if (std::find(p.values.begin(), p.values.end(), *parsed) == p.values.end()) {
      p.values.push_back(*parsed);
    }
  }
  return p;
}

Status ParseTests(const Where& w, const YAML::Node& v, const TestGrammar& grammar,
                  std::vector<TestSpec>* tests) {
  for (const YAML::Node& n : AsList(v)) {
    auto s = Scalar(w, n, "a test");
    if (!s) return s.error();
    if (!grammar) return w.At(n, "no test kinds are known to this parser");
    auto t = grammar(*s);
    if (!t) return w.At(n, t.error().message);
    t->line = Line(n);
    for (const auto& other : *tests) {
      if (other.name == t->name) {
        return w.At(n,
                    fmt::format("test {} is listed twice (first at line {})", t->name, other.line));
      }
    }
    tests->push_back(*t);
  }
  if (tests->empty()) return w.At(v, "tests: needs at least one test");
  return {};
}

// An integer key of the top level, in [lo, hi].
Result<int> SmallInteger(const Where& w, const YAML::Node& v, const std::string& what, int64_t lo,
                         int64_t hi) {
  auto i = Integer(w, v, what, lo, hi);
  if (!i) return i.error();
  return static_cast<int>(*i);
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
Status ParseTopKey(const Where& w, const std::string& key, const YAML::Node& k, const YAML::Node& v,
                   const runtime::ParamRegistry& registry, const SpecRegistry& specs,
                   const runtime::RuntimeRegistry& runtimes, WrittenExperiment* ex,
                   bool* have_models, bool* have_tests) {
  if ((key == "device" || key == "devices") &&
      !(key == "device" && v.IsScalar() && v.Scalar() == "local")) {
    // `device: local` (files older than devices:) stays as written; anything else is a list.
    if (ex->device || !ex->devices.empty()) {
      return w.At(k, "give either 'device:' or 'devices:', not both");
    }
    if (!specs.devices()) return w.At(k, "no device kinds are known to this parser");
    auto devices = ParseDevices(w, v, *specs.devices());
    if (!devices) return devices.error();
    ex->devices = std::move(*devices);
  } else if (key == "name" || key == "description" || key == "store" || key == "device") {
    auto s = Scalar(w, v, key);
    if (!s) return s.error();
    if (key == "device" && !ex->devices.empty()) {
      return w.At(k, "give either 'device:' or 'devices:', not both");
    }
    (key == "name"          ? ex->name
     : key == "description" ? ex->description
     : key == "store"       ? ex->store
                            : ex->device) = *s;
  } else if (key == "models") {
    *have_models = true;
    if (v.IsNull() || (v.IsSequence() && v.size() == 0)) {
      return w.At(v.IsNull() ? k : v, "models: needs at least one model");
    }
    for (const YAML::Node& n : AsList(v)) {
      auto m = ParseModel(w, n);
      if (!m) return m.error();
      ex->models.push_back(std::move(*m));
    }
  } else if (key == "runtime" || key == "runtimes") {
    if (!ex->runtimes.empty()) return w.At(k, "give either 'runtime:' or 'runtimes:', not both");
    for (const YAML::Node& n : AsList(v)) {
      auto r = ParseRuntime(w, n, runtimes);
      if (!r) return r.error();
      ex->runtimes.push_back(std::move(*r));
    }
  } else if (key == "params") {
    if (!v.IsMap()) return w.At(v, "params: must be a mapping of parameter: value or [values]");
    KeySet param_keys;
    for (const auto& p : v) {
      if (auto st = param_keys.Add(w, p.first, "in params "); !st) return st;
      auto param = ParseParam(w, p.first, p.second, registry);
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
    return ParseTests(w, v, specs.tests(), &ex->tests);
  } else if (key == "repetitions" || key == "warmup") {
    auto i = SmallInteger(w, v, key, key == "warmup" ? 0 : 1, 100000);
    if (!i) return i.error();
    (key == "warmup" ? ex->warmup : ex->repetitions) = *i;
  } else if (const SpecDef* section = specs.FindSection(key)) {
    // A section its owner defines (select:): parsed by its def, held without its type.
    auto spec = section->Parse(w, v);
    if (!spec) return spec.error();
    ex->sections.Set(*section, std::move(*spec));
  } else if (key == "timeout") {
    auto i = SmallInteger(w, v, "timeout (seconds)", 1, 7 * 24 * 3600);
    if (!i) return i.error();
    ex->timeout = *i;
  } else if (key == "seed") {
    auto i = Integer(w, v, "seed", 0, INT64_MAX);
    if (!i) return i.error();
    ex->seed = static_cast<uint64_t>(*i);
  } else if (registry.Find(key)) {
    return w.At(k, fmt::format("'{}' is a runtime parameter: put it under 'params:'", key));
  } else if (const runtime::ParamDef* alias = registry.FindAlias(key)) {
    return w.At(k, fmt::format("unknown key '{}': the runtime parameter is '{}', under 'params:'",
                               key, alias->name));
  } else {
    std::vector<std::string> keys = kTopKeys;
    for (const SpecDef* d : specs.sections()) keys.push_back(d->Name());
    return w.At(k, fmt::format("unknown key '{}'{}", key, DidYouMean(key, keys)));
  }
  return {};
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
  if (auto bad = NotUtf8Scalar(root)) {
    return w.At(*bad, "this text is not UTF-8 once its escapes are decoded");
  }

  WrittenExperiment ex;
  ex.path = path;
  ex.source_text = text;
  bool have_models = false, have_tests = false;
  KeySet top_keys;
  for (const auto& kv : root) {
    if (auto st = top_keys.Add(w, kv.first, ""); !st) return st.error();
    if (auto st = ParseTopKey(w, kv.first.Scalar(), kv.first, kv.second, registry, specs, runtimes,
                              &ex, &have_models, &have_tests);
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
