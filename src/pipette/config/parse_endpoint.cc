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

Result<std::vector<std::string>> Strings(const Where& w, const YAML::Node& node,
                                         const std::string& what) {
  std::vector<std::string> out;
  for (const YAML::Node& n : AsList(node)) {
    auto s = Scalar(w, n, what);
    if (!s) return s.error();
    out.push_back(*s);
  }
  return out;
}

Result<WrittenServer> ParseServer(const Where& w, const YAML::Node& node) {
  WrittenServer s;
  if (node.IsScalar()) {
    if (node.Scalar() != "bundled") {
      return w.At(node, fmt::format("server: '{}' is not known: write `server: bundled` (the "
                                    "pinned llama-server Pipette builds) or `server: {{command: "
                                    "[...]}}`",
                                    node.Scalar()));
    }
    s.bundled = true;
    return s;
  }
  if (!node.IsMap()) {
    return w.At(node,
                "server: is `bundled` or a mapping: command:, parallel:, ready_timeout:, "
                "args:");
  }
  KeySet keys;
  for (const auto& kv : node) {
    if (auto st = keys.Add(w, kv.first, "in server "); !st) return st.error();
    const std::string key = kv.first.Scalar();
    if (key == "command") {
      if (kv.second.IsScalar() && kv.second.Scalar() == "bundled") {
        s.bundled = true;
        continue;
      }
      auto c = Strings(w, kv.second, "server.command");
      if (!c) return c.error();
      if (c->empty()) return w.At(kv.second, "server.command: empty");
      s.command = std::move(*c);
    } else if (key == "parallel") {
      auto n = Integer(w, kv.second, "server.parallel", 1, 256);
      if (!n) return n.error();
      s.parallel = static_cast<int>(*n);
    } else if (key == "ready_timeout") {
      auto n = Integer(w, kv.second, "server.ready_timeout", 1, 3600);
      if (!n) return n.error();
      s.ready_timeout = static_cast<int>(*n);
    } else if (key == "args") {
      auto a = Strings(w, kv.second, "server.args");
      if (!a) return a.error();
      s.args = std::move(*a);
    } else {
      return w.At(kv.first,
                  fmt::format("unknown key '{}' in server{}", key, DidYouMean(key, kServerKeys)));
    }
  }
  if (s.command.empty()) s.bundled = true;  // {parallel: 4} alone: the bundled server
  if (!s.bundled && !s.args.empty()) {
    return w.At(node,
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

Result<json> JsonValue(const Where& w, const YAML::Node& node, const std::string& what) {
  if (node.IsMap()) {
    json out = json::object();
    KeySet keys;
    for (const auto& kv : node) {
      if (auto st = keys.Add(w, kv.first, "in " + what + " "); !st) return st.error();
      auto v = JsonValue(w, kv.second, what + "." + kv.first.Scalar());
      if (!v) return v.error();
      out[kv.first.Scalar()] = std::move(*v);
    }
    return out;
  }
  if (node.IsSequence()) {
    json out = json::array();
    for (const YAML::Node& n : node) {
      auto v = JsonValue(w, n, what + "[]");
      if (!v) return v.error();
      out.push_back(std::move(*v));
    }
    return out;
  }
  return JsonScalar(w, node, what);
}

Status ParseEndpointKey(const Where& w, const YAML::Node& k, const YAML::Node& v,
                        WrittenEndpoint* e) {
  const std::string key = k.Scalar();
  if (key == "api_key") {
    // The value is never repeated: it may be a real key.
    return w.At(k,
                "api_key: a key is never written in an experiment file (it would be stored "
                "with the run); put it in an environment variable and name that variable: "
                "`api_key_env: OPENAI_API_KEY`");
  }
  if (key == "base_url") {
    auto s = Scalar(w, v, "base_url");
    if (!s) return s.error();
    if (auto url = http::ParseUrl(*s); !url) return w.At(v, url.error().message);
    e->base_url = *s;
  } else if (key == "model") {
    auto s = Scalar(w, v, "model");
    if (!s) return s.error();
    e->model = *s;
  } else if (key == "api_key_env") {
    if (!v.IsScalar() || !IsEnvName(v.Scalar())) {
      // Not the value either: a key pasted here by mistake must not be printed.
      return w.At(v,
                  "api_key_env: the name of an environment variable (letters, digits and "
                  "'_'), such as OPENAI_API_KEY; the key itself is never written here");
    }
    e->api_key_env = v.Scalar();
  } else if (key == "body") {
    if (!v.IsMap()) return w.At(v, "body: a mapping of keys added to every request body");
    for (const auto& kv : v) {
      if (kv.first.Scalar() == "ignore_eos" &&
          !(kv.second.IsScalar() && kv.second.Scalar() == "true")) {
        return w.At(kv.second,
                    "body: ignore_eos: true says the server honours llama.cpp's ignore_eos "
                    "(vLLM, SGLang do); Pipette then sends it on speed tests, never on gen; "
                    "leave it out for a server that does not");
      }
      const auto& own = endpoint::PipetteBodyKeys();
      if (std::find(own.begin(), own.end(), kv.first.Scalar()) != own.end()) {
        return w.At(kv.first, fmt::format("body: key '{}' is set by Pipette (it decides what is "
                                          "measured) and cannot be replaced",
                                          kv.first.Scalar()));
      }
    }
    auto j = JsonValue(w, v, "body");
    if (!j) return j.error();
    e->body = std::move(*j);
  } else if (key == "server") {
    auto s = ParseServer(w, v);
    if (!s) return s.error();
    e->server = std::move(*s);
  } else {
    return w.At(k, fmt::format("unknown key '{}' in an endpoint runtime", key));
  }
  return {};
}

Status CheckEndpoint(const Where& w, const YAML::Node& entry, const WrittenEndpoint& e) {
  if (e.base_url && e.server) {
    return w.At(entry,
                "an endpoint runtime takes either base_url: (a server already running) or "
                "server: (Pipette starts one), not both");
  }
  if (!e.base_url && !e.server) {
    return w.At(entry,
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
