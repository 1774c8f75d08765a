#include "pipette/config/parse_endpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "pipette/endpoint/openai_stream.h"
#include "pipette/http/client.h"
#include "pipette/util/strings.h"

namespace pipette::config {
namespace {

using nlohmann::json;

const std::vector<std::string> kServerKeys = {"command", "parallel", "ready_timeout", "args"};

// An environment variable's name: letters, digits and '_', not starting with a digit.
bool IsEnvName(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

Result<WrittenServer> ParseServer(const Where& w, const YAML::Node& node, const std::string& path) {
  WrittenServer s;
  if (node.IsScalar()) {
    if (node.Scalar() != "bundled") {
      // A word is named; a command line (which may hold a key) is not repeated.
      const std::string& t = node.Scalar();
      const bool word =
          t.size() <= 40 && std::all_of(t.begin(), t.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
          });
      return w.At(node, fmt::format("server: {} is not known: write `server: bundled` (the "
                                    "pinned llama-server Pipette builds) or `server: {{command: "
                                    "[...]}}`",
                                    word ? "'" + t + "'" : "this value"));
    }
    s.bundled = true;
    return s;
  }
  auto m = YamlMapping::Read(w, node, path,
                             "server: is `bundled` or a mapping: command:, parallel:, "
                             "ready_timeout:, args:");
  if (!m) return m.error();
  if (auto st = m->OnlyKeys(kServerKeys, " in server"); !st) return st.error();
  FieldReader& f = m->fields();
  if (f.Has("command")) {
    const std::vector<std::string> command = f.Strings("command");
    if (command == std::vector<std::string>{"bundled"} && !m->Node("command").IsSequence()) {
      s.bundled = true;
    } else if (f.ok() && command.empty()) {
      f.FailAt("command", "server.command: empty");
    } else {
      s.command = command;
    }
  }
  if (f.Has("parallel")) s.parallel = static_cast<int>(f.Int("parallel", 1, 256));
  if (f.Has("ready_timeout")) s.ready_timeout = static_cast<int>(f.Int("ready_timeout", 1, 3600));
  if (f.Has("args")) s.args = f.Strings("args");
  if (auto st = m->status(); !st) return st.error();
  if (s.command.empty()) s.bundled = true;  // {parallel: 4} alone: the bundled server
  if (!s.bundled && !s.args.empty()) {
    return m->Here(
        "server.args: only for the bundled server (a command of your own takes its "
        "arguments in command:)");
  }
  return s;
}

}  // namespace

const std::vector<std::string>& EndpointKeys() {
  static const std::vector<std::string> keys = {"base_url", "model", "api_key_env", "body",
                                                "server"};
  return keys;
}

Status ParseEndpointKey(const Where& w, YamlMapping& entry, const std::string& key,
                        const std::string& path, WrittenEndpoint* e) {
  FieldReader& f = entry.fields();
  if (key == "api_key") {
    // The value is never repeated: it may be a real key.
    return entry.AtKey(key,
                       "api_key: a key is never written in an experiment file (it would be "
                       "stored with the run); put it in an environment variable and name that "
                       "variable: `api_key_env: OPENAI_API_KEY`");
  }
  if (key == "base_url") {
    const std::string url = f.String("base_url");
    if (auto st = f.status(); !st) return st;
    if (auto parsed = http::ParseUrl(url); !parsed) {
      return entry.At(key, parsed.error().message);
    }
    e->base_url = url;
  } else if (key == "model") {
    e->model = f.String("model");
  } else if (key == "api_key_env") {
    const YAML::Node v = entry.Node(key);
    if (!v.IsScalar() || !IsEnvName(v.Scalar())) {
      // Not the value either: a key pasted here by mistake must not be printed.
      return entry.At(key,
                      "api_key_env: the name of an environment variable (letters, digits and "
                      "'_'), such as OPENAI_API_KEY; the key itself is never written here");
    }
    e->api_key_env = v.Scalar();
  } else if (key == "body") {
    const json& body = entry.json().at(key);
    if (!body.is_object()) {
      return entry.At(key, "body: a mapping of keys added to every request body");
    }
    auto m = YamlMapping::Read(w, entry.Node(key), path + ".body", "");
    if (!m) return m.error();
    for (const std::string& k : m->keys()) {
      if (k == "ignore_eos" && m->json().at(k) != json(true)) {
        return m->At(k,
                     "body: ignore_eos: true (the boolean, unquoted) says the server honours "
                     "llama.cpp's ignore_eos "
                     "(vLLM, SGLang do); Pipette then sends it on speed tests, never on gen; "
                     "leave it out for a server that does not");
      }
      const auto& own = endpoint::PipetteBodyKeys();
      if (std::find(own.begin(), own.end(), k) != own.end()) {
        return m->AtKey(k, fmt::format("body: key '{}' is set by Pipette (it decides what is "
                                       "measured) and cannot be replaced",
                                       k));
      }
    }
    e->body = body;
  } else if (key == "server") {
    auto s = ParseServer(w, entry.Node(key), path + ".server");
    if (!s) return s.error();
    e->server = std::move(*s);
  } else {
    return entry.AtKey(key, fmt::format("unknown key '{}' in an endpoint runtime", key));
  }
  return f.status();
}

Status CheckEndpoint(const Place& entry, const WrittenEndpoint& e) {
  if (e.base_url && e.server) {
    return entry.Fail(
        "an endpoint runtime takes either base_url: (a server already running) or "
        "server: (Pipette starts one), not both");
  }
  if (!e.base_url && !e.server) {
    return entry.Fail(
        "an endpoint runtime needs base_url: (a server already running, e.g. "
        "http://127.0.0.1:8080/v1) or server: bundled (Pipette starts the pinned "
        "llama-server on the experiment's model)");
  }
  return {};
}

json CanonicalEndpoint(const WrittenEndpoint& e) {
  json j = json::object();
  if (e.base_url) j["base_url"] = *e.base_url;
  if (e.model) j["model"] = *e.model;
  if (e.api_key_env) j["api_key_env"] = *e.api_key_env;
  if (!e.body.empty()) j["body"] = e.body;
  if (e.server) {
    json s = json::object();
    if (e.server->bundled) {
      s["command"] = "bundled";
    } else {
      s["command"] = e.server->command;
    }
    if (e.server->parallel) s["parallel"] = *e.server->parallel;
    if (e.server->ready_timeout) s["ready_timeout"] = *e.server->ready_timeout;
    if (!e.server->args.empty()) s["args"] = e.server->args;
    j["server"] = s;
  }
  return j;
}

}  // namespace pipette::config
