#include "pipette/endpoint/channel.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <regex>

#include "pipette/device/loaded_worker.h"
#include "pipette/endpoint/replies.h"
#include "pipette/endpoint/server.h"
#include "pipette/endpoint/stream.h"
#include "pipette/http/text.h"
#include "pipette/model/gguf.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/ops.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/speed_ops.h"
#include "pipette/protocol/version.h"
#include "pipette/util/json_parse.h"
#include "pipette/util/temp_dir.h"

namespace pipette::endpoint {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using worker::CallError;
using worker::FailedCall;

std::optional<int64_t> MetaInt(const model::GgufFile& f, const std::string& key) {
  auto it = f.metadata.find(key);
  if (it == f.metadata.end()) return std::nullopt;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return std::nullopt;
  }
}

// "[array of 49152 string]" -> 49152.
std::optional<int64_t> ArrayLength(const model::GgufFile& f, const std::string& key) {
  auto it = f.metadata.find(key);
  if (it == f.metadata.end()) return std::nullopt;
  std::smatch m;
  static const std::regex kArray(R"(^\[array of (\d+) )");
  if (!std::regex_search(it->second, m, kArray)) return std::nullopt;
  return std::stoll(m[1].str());
}

// What the model file says of itself: the facts a worker's load_model reply gives.
Result<protocol::ModelInfo> ModelInfoOf(const std::string& path) {
  auto f = model::ReadGguf(path);
  if (!f) return f.error();
  protocol::ModelInfo m;
  const std::string arch = f->architecture().value_or("?");
  const std::string ftype =
      f->file_type() ? model::FileTypeName(*f->file_type()).value_or("?") : std::string("?");
  m.n_params = static_cast<int64_t>(f->n_params());
  m.size_bytes = static_cast<int64_t>(f->file_size);
  m.desc = fmt::format("{} {}M {}", arch, *m.n_params / 1000000, ftype);
  m.n_ctx_train = MetaInt(*f, arch + ".context_length");
  m.n_layer = MetaInt(*f, arch + ".block_count");
  m.n_embd = MetaInt(*f, arch + ".embedding_length");
  m.n_vocab = ArrayLength(*f, "tokenizer.ggml.tokens");
  m.bos = MetaInt(*f, "tokenizer.ggml.bos_token_id").value_or(-1);
  m.eos = MetaInt(*f, "tokenizer.ggml.eos_token_id").value_or(-1);
  auto add_bos = f->metadata.find("tokenizer.ggml.add_bos_token");
  m.add_bos = add_bos != f->metadata.end() && add_bos->second == "true";
  return m;
}

// The build `argv[0] --version` names, as llama-server's /props says it ("b1-0c1e570"), or "".
std::string ServerVersion(const std::string& program) {
  std::string quoted;
  for (char c : program) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  // A program that ignores --version must not hold the run: ten seconds at most.
  const std::string cmd = "timeout 10 '" + quoted + "' --version 2>&1 </dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return "";
  std::string out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), static_cast<int>(buf.size()), p)) out += buf.data();
  ::pclose(p);
  // "version: 0.5.0-dev (build 1, commit 0c1e570)": as /props' build_info says it, b1-0c1e570.
  std::smatch m;
  static const std::regex kVersion(R"(version: \S+ \(build (\d+), commit (\w+)\))");
  if (std::regex_search(out, m, kVersion)) return "b" + m[1].str() + "-" + m[2].str();
  return "";
}

// A field of a server's JSON reply, type-checked where it is read: absent or null is nullopt,
// another type (or a count out of its range) an error naming the reply and the field, never an
// exception.
Result<std::optional<std::string>> StringField(const json& reply, const char* key,
                                               std::string_view what) {
  const auto it = reply.find(key);
  if (it == reply.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) {
    return RuntimeError(fmt::format("{}: '{}' is not a string", what, key));
  }
  return std::optional<std::string>(it->get<std::string>());
}

Result<std::optional<int64_t>> CountField(const json& reply, const char* key, int64_t lo,
                                          int64_t hi, std::string_view what) {
  const auto it = reply.find(key);
  if (it == reply.end() || it->is_null()) return std::optional<int64_t>();
  if (it->is_number_integer() &&
      !(it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(hi)) &&
      it->get<int64_t>() >= lo && it->get<int64_t>() <= hi) {
    return std::optional<int64_t>(it->get<int64_t>());
  }
  return RuntimeError(fmt::format("{}: '{}' is {}: not a whole number from {} to {}", what, key,
                                  http::ServerText(it->dump(), "", 40), lo, hi));
}

// A server's context or slots past this is no figure a server gives.
constexpr int64_t kMaxServerCount = int64_t{1} << 30;

http::Url OriginOf(http::Url url) {
  url.base_path.clear();
  return url;
}

class EndpointChannel : public worker::WorkerChannel {
 public:
  EndpointChannel(ChannelConfig cfg, std::optional<http::Url> base)
      : cfg_(std::move(cfg)), base_(std::move(base)) {}
  ~EndpointChannel() override {
    StopServer();
    StopTokenizer();
  }

  Result<json, CallError> Call(json request, milliseconds timeout) override {
    const std::string op = request.value("op", "");
    timeout_ = timeout;
    // Every field read from a server is type-checked where it is read; a reply of a shape no
    // check foresaw still fails the call, never the run.
    try {
      return Answer(op, request);
    } catch (const json::exception& e) {
      last_error_ = Redact(
          fmt::format("a reply of the endpoint {} has an unexpected shape: {}", Where(), e.what()));
      return FailedCall(op, last_error_);
    }
  }

  Result<json, CallError> Answer(const std::string& op, const json& request) {
    Result<json, CallError> r = FailedCall(op, "unknown op '" + op + "'");
    if (op == protocol::op::kHello) {
      r = Hello();
    } else if (op == protocol::op::kLoadModel) {
      r = LoadModel(request);
    } else if (op == protocol::op::kInitContext) {
      r = InitContext(request);
    } else if (op == protocol::op::kTokenize && HasTokenizer()) {
      r = Tokenize(request);
    } else if (op == protocol::op::kDetokenize && HasTokenizer()) {
      r = Detokenize(request);
    } else if (op == protocol::op::kTg) {
      r = Tg(request);
    } else if (op == protocol::op::kTtft) {
      r = Ttft(request);
    } else if (op == protocol::op::kChat) {
      r = Chat(request);
    } else if (op == protocol::op::kResetPeakMemory && cfg_.spec.start_server) {
      r = ResetPeak();
    } else if (op == protocol::op::kMemory && cfg_.spec.start_server) {
      r = Memory();
    } else if (op == protocol::op::kShutdown) {
      StopServer();
      StopTokenizer();
      r = json::object();
    }
    if (!r) {
      CallError e = r.error();
      e.message = Redact(e.message);
      last_error_ = e.message;
      return e;
    }
    json out = Redacted(std::move(*r));
    out["id"] = request.value("id", 0);
    out["ok"] = true;
    return out;
  }

  std::string StderrTail() const override {
    std::string tail = server_ ? server_->LogTail(30) : "";
    if (!last_error_.empty()) tail += (tail.empty() ? "" : "\n") + last_error_;
    return tail;
  }
  int Pid() const override { return server_ ? static_cast<int>(server_->pid()) : 0; }
  bool Alive() const override { return !server_ || server_->Alive(); }
  void Shutdown(milliseconds) override {
    StopServer();
    StopTokenizer();
  }

 private:
  // `text` with the API key cut out wherever a server's words repeated it (an error body).
  std::string Redact(const std::string& text) const {
    return http::RedactSecret(text, cfg_.api_key);
  }
  // A reply's error messages (a failed stream's `error`, a failed request's `message`: the words
  // a server or the client wrote) redacted the same way. Only those: a measured text, a rendered
  // prompt or an answer is data, kept as it came, whatever a key such as "EMPTY" matches in it.
  json Redacted(json j) const {
    if (cfg_.api_key.empty() || !j.is_structured()) return j;
    if (j.is_object()) {
      for (auto& [k, v] : j.items()) {
        if ((k == "error" || k == "message") && v.is_string()) {
          v = Redact(v.get<std::string>());
        } else {
          v = Redacted(std::move(v));
        }
      }
    } else {
      for (auto& v : j) v = Redacted(std::move(v));
    }
    return j;
  }

  // llama-server's own endpoints (/tokenize, /detokenize, /apply-template, /props) are there.
  bool Flavored() const { return flavor_ == Flavor::kLlamaServer; }

  std::string Where() const {
    return cfg_.spec.start_server ? "the started server" : cfg_.spec.base_url;
  }

  // A GET or POST of JSON to `path` under the origin (llama-server's own endpoints) or the base.
  Result<json, CallError> Exchange(const std::string& op, const std::string& method,
                                   const std::string& path, const json& body, bool at_origin) {
    if (!base_) return FailedCall(op, "the server is not started yet (no init_context)");
    http::Request req{.method = method,
                      .path = path,
                      .body = method == "GET" ? "" : body.dump(),
                      .timeout = timeout_};
    if (!cfg_.api_key.empty()) req.headers.emplace_back("Authorization", "Bearer " + cfg_.api_key);
    auto resp = cfg_.client->Send(at_origin ? OriginOf(*base_) : *base_, req);
    if (!resp) return FailedCall(op, resp.error().message);
    const std::string where = (at_origin ? "" : base_->base_path) + path;
    if (resp->status != 200) {
      // The key cut out of the server's words before they are cut to their bound.
      return FailedCall(
          op,
          fmt::format("{}: HTTP {}: {}", where, resp->status,
                      http::ServerText(resp->body + (resp->body_cut ? " ..." : ""), cfg_.api_key)));
    }
    const std::string what = fmt::format("the server's reply to {} {}", method, where);
    auto j = ParseJsonBounded(resp->body, what);
    if (!j) return FailedCall(op, http::ServerText(j.error().message, cfg_.api_key));
    if (!j->is_object()) return FailedCall(op, what + ": not a JSON object");
    return std::move(*j);
  }

  Result<json, CallError> Hello() {
    json build = {{"endpoint", cfg_.spec.ToJson()}};
    std::string version;
    if (cfg_.spec.start_server) {
      flavor_ = cfg_.spec.server_bundled ? Flavor::kLlamaServer : Flavor::kGeneric;
      if (!cfg_.spec.server_command.empty()) version = ServerVersion(cfg_.spec.server_command[0]);
      if (!version.empty()) flavor_ = Flavor::kLlamaServer;  // it answers as llama-server does
    } else {
      // A running server: llama-server answers /props with its build.
      auto props = Exchange(protocol::op::kHello, "GET", "/props", json(), true);
      auto info = props ? StringField(*props, "build_info", "the server's reply to GET /props")
                        : Result<std::optional<std::string>>(std::optional<std::string>());
      if (!info) return FailedCall(protocol::op::kHello, info.error().message);
      if (*info) {
        flavor_ = Flavor::kLlamaServer;
        version = http::ServerText(**info, cfg_.api_key, 100);
      } else if (!props && props.error().message.find("could not connect") != std::string::npos) {
        return FailedCall(protocol::op::kHello, fmt::format("the endpoint {} is down: {}", Where(),
                                                            props.error().message));
      }
    }
    build["flavor"] = Flavored() ? "llama-server" : "generic";
    protocol::HelloResponse h;
    h.runtime = cfg_.runtime;
    h.runtime_version = version.empty() ? "unknown" : version;
    h.runtime_build = build;
    h.pid = Pid();
    h.ops = {protocol::op::kHello,   protocol::op::kLoadModel, protocol::op::kInitContext,
             protocol::op::kTg,      protocol::op::kTtft,      protocol::op::kChat,
             protocol::op::kShutdown};
    if (HasTokenizer()) {  // the server's own, else the model's (a worker, on first use)
      h.ops.push_back(protocol::op::kTokenize);
      h.ops.push_back(protocol::op::kDetokenize);
    }
    if (cfg_.spec.start_server) {
      h.ops.push_back(protocol::op::kMemory);
      h.ops.push_back(protocol::op::kResetPeakMemory);
    }
    return json(h.ToJson());
  }

  Result<json, CallError> LoadModel(const json& request) {
    auto req = protocol::LoadModelRequest::FromJson(request);
    if (!req) return FailedCall(protocol::op::kLoadModel, req.error().message);
    const int64_t t0 = http::SteadyNowNs();
    auto info = ModelInfoOf(req->path);
    if (!info) return FailedCall(protocol::op::kLoadModel, info.error().message);
    if (model_path_ != req->path) {  // another model: another server, another tokenizer
      StopServer();
      StopTokenizer();
    }
    model_path_ = req->path;
    json endpoint = json::object();
    if (!cfg_.spec.start_server) {
      // The running server must be up and serve the model asked for.
      auto models = Exchange(protocol::op::kLoadModel, "GET", "/models", json(), false);
      if (!models) {
        return FailedCall(protocol::op::kLoadModel,
                          fmt::format("the endpoint {} did not list its models: {}", Where(),
                                      models.error().message));
      }
      std::vector<std::string> ids;
      const auto data = models->find("data");
      if (data == models->end() || !data->is_array()) {
        return FailedCall(protocol::op::kLoadModel,
                          fmt::format("the endpoint {} did not list its models: its reply to GET "
                                      "/models has no 'data' array",
                                      Where()));
      }
      for (const json& m : *data) {
        if (!m.is_object() || !m.contains("id") || !m["id"].is_string()) {
          return FailedCall(protocol::op::kLoadModel,
                            fmt::format("the endpoint {} did not list its models: an entry of "
                                        "its reply to GET /models has no string 'id'",
                                        Where()));
        }
        ids.push_back(http::ServerText(m["id"].get<std::string>(), cfg_.api_key, 200));
      }
      served_model_ = cfg_.spec.model;
      if (served_model_.empty() && !ids.empty()) served_model_ = ids.front();
      if (!cfg_.spec.model.empty() &&
          std::find(ids.begin(), ids.end(), cfg_.spec.model) == ids.end()) {
        return FailedCall(protocol::op::kLoadModel,
                          fmt::format("the endpoint {} does not serve model '{}' (it serves: {})",
                                      Where(), cfg_.spec.model, fmt::join(ids, ", ")));
      }
      endpoint["served_models"] = ids;
      // The server loaded its model before Pipette came: there is no load to time.
      endpoint["load_measured"] = false;
    }
    const int64_t t1 = http::SteadyNowNs();
    protocol::LoadModelResponse resp;
    resp.t_start_ns = t0;
    resp.t_end_ns = t1;
    resp.model = *info;
    json out = resp.ToJson();
    out["endpoint"] = endpoint;
    if (!cfg_.spec.start_server) out["load_measured"] = false;
    return out;
  }

  // The started server's argv for this context.
  std::vector<std::string> ServerArgv(int64_t n_ctx, std::optional<int64_t> threads,
                                      int slots) const {
    const auto& spec = cfg_.spec;
    if (spec.server_bundled) {
      std::vector<std::string> argv = {spec.server_command.at(0),
                                       "-m",
                                       model_path_,
                                       "--host",
                                       "127.0.0.1",
                                       "--port",
                                       "{port}",
                                       "-c",
                                       std::to_string(n_ctx * slots),
                                       "--parallel",
                                       std::to_string(slots),
                                       "--cache-ram",
                                       "0",
                                       "--no-webui"};
      if (threads) {
        for (const char* flag : {"-t", "-tb"}) {
          argv.push_back(flag);
          argv.push_back(std::to_string(*threads));
        }
      }
      argv.insert(argv.end(), spec.server_args.begin(), spec.server_args.end());
      return argv;
    }
    std::vector<std::string> argv;
    for (std::string a : spec.server_command) {
      auto put = [&](const std::string& key, const std::string& value) {
        for (size_t p = a.find(key); p != std::string::npos; p = a.find(key, p + value.size())) {
          a.replace(p, key.size(), value);
        }
      };
      put("{model}", model_path_);
      put("{n_ctx}", std::to_string(n_ctx * slots));
      put("{parallel}", std::to_string(slots));
      put("{threads}", threads ? std::to_string(*threads) : "");
      argv.push_back(a);
    }
    return argv;
  }

  Result<json, CallError> InitContext(const json& request) {
    const char* op = protocol::op::kInitContext;
    auto req = protocol::InitContextRequest::FromJson(request);
    if (!req) return FailedCall(op, req.error().message);
    concurrency_ = req->options.value("concurrency", int64_t{1});
    const std::string api = req->options.value("api", "completions");
    api_ = api == "chat" ? Api::kChat : Api::kCompletions;
    std::optional<int64_t> threads;
    if (req->options.contains("n_threads") && req->options["n_threads"].is_number_integer()) {
      threads = req->options["n_threads"].get<int64_t>();
    }
    json applied = {{"concurrency", concurrency_}, {"api", api}};
    // Threads reach only a server Pipette starts; a running server's are its own.
    if (threads && cfg_.spec.start_server) applied["n_threads"] = *threads;
    const int64_t t0 = http::SteadyNowNs();
    int64_t n_ctx = req->n_ctx;
    if (cfg_.spec.start_server) {
      const int slots = cfg_.spec.parallel.value_or(1);
      if (concurrency_ > slots) {
        return FailedCall(op, fmt::format("concurrency {} is more than the server's {} slot(s)",
                                          concurrency_, slots));
      }
      const std::vector<std::string> argv = ServerArgv(req->n_ctx, threads, slots);
      const std::string key = fmt::format("{}", fmt::join(argv, "\x1f"));
      const bool reuse = server_ && server_->Alive() && key == server_key_;
      if (!reuse) {
        StopServer();
        if (!log_dir_) log_dir_ = std::make_unique<TempDir>("pipette-server");
        const auto log = log_dir_->path() / fmt::format("server-{}.log", ++starts_);
        auto started = ServerProcess::Start(
            argv, log, *cfg_.client, std::chrono::seconds(cfg_.spec.ready_timeout_s), cfg_.cancel);
        if (!started) return FailedCall(op, started.error().message);
        server_ = std::move(*started);
        server_key_ = key;
        http::Url url = server_->url();
        url.base_path = "/v1";
        base_ = url;
      }
      applied["server_started"] = !reuse;
      applied["server_argv"] = argv;
      applied["server_pid"] = server_->pid();
      applied["slots"] = slots;
    }
    const int64_t t1 = http::SteadyNowNs();
    if (Flavored()) {
      auto props = Exchange(op, "GET", "/props", json(), true);
      if (!props) return props.error();
      const char* what = "the server's reply to GET /props";
      const auto gen = props->find("default_generation_settings");
      if (gen != props->end() && !gen->is_null() && !gen->is_object()) {
        return FailedCall(op,
                          fmt::format("{}: 'default_generation_settings' is not an object", what));
      }
      auto slot_ctx = gen == props->end() || gen->is_null()
                          ? Result<std::optional<int64_t>>(std::optional<int64_t>())
                          : CountField(*gen, "n_ctx", 1, kMaxServerCount, what);
      if (!slot_ctx) return FailedCall(op, slot_ctx.error().message);
      if (*slot_ctx) {
        applied["server_n_ctx_per_slot"] = **slot_ctx;
        if (cfg_.spec.start_server) {
          n_ctx = **slot_ctx;  // what each slot holds: compared with the plan's
        } else if (**slot_ctx < req->n_ctx) {
          return FailedCall(op, fmt::format("the server's context per slot ({} tokens) is less "
                                            "than the {} this cell's tests need",
                                            **slot_ctx, req->n_ctx));
        }
      }
      auto total_slots = CountField(*props, "total_slots", 1, kMaxServerCount, what);
      if (!total_slots) return FailedCall(op, total_slots.error().message);
      if (*total_slots) {
        const int64_t slots = **total_slots;
        applied["slots"] = slots;
        // Streams beyond the slots would queue: they would not run at the concurrency stated.
        if (!cfg_.spec.start_server && concurrency_ > slots) {
          return FailedCall(op, fmt::format("concurrency {} is more than the {} slot(s) of the "
                                            "server at {} (llama-server's --parallel): the "
                                            "streams would queue",
                                            concurrency_, slots, Where()));
        }
      }
      auto build = StringField(*props, "build_info", what);
      if (!build) return FailedCall(op, build.error().message);
      if (*build) applied["server_build"] = http::ServerText(**build, cfg_.api_key, 100);
      auto tmpl = StringField(*props, "chat_template", what);
      if (!tmpl) return FailedCall(op, tmpl.error().message);
      chat_template_ = tmpl->value_or("");
    }
    protocol::InitContextResponse resp;
    resp.t_start_ns = t0;
    resp.t_end_ns = t1;
    resp.n_ctx = n_ctx;
    resp.applied = applied;
    json out = resp.ToJson();
    for (const auto& [k, v] : applied.items()) out[k] = v;
    return out;
  }

  // The prompt llama-server renders for a chat body (its /apply-template).
  Result<std::string, CallError> RenderedPrompt(const std::string& op, const json& body) {
    auto r = Exchange(op, "POST", "/apply-template", body, true);
    if (!r) return r.error();
    auto prompt = StringField(*r, "prompt", "the server's reply to POST /apply-template");
    if (!prompt) return FailedCall(op, prompt.error().message);
    if (!*prompt) return FailedCall(op, "the server's reply to POST /apply-template has no prompt");
    return **prompt;
  }

  // The model's tokenizer is at hand: llama-server's own endpoints, else a worker that loads
  // the model's GGUF (started on first use).
  bool HasTokenizer() const {
    return Flavored() || (!cfg_.tokenizer_program.empty() && cfg_.device != nullptr);
  }

  Result<std::vector<int64_t>, CallError> TokensOf(const std::string& op, const std::string& text,
                                                   bool add_special, bool parse_special) {
    std::vector<int64_t> out;
    if (Flavored()) {
      auto r = Exchange(
          op, "POST", "/tokenize",
          {{"content", text}, {"add_special", add_special}, {"parse_special", parse_special}},
          true);
      if (!r) return r.error();
      const auto tokens = r->find("tokens");
      if (tokens == r->end() || !tokens->is_array()) {
        return FailedCall(op, "the server's reply to POST /tokenize has no 'tokens' array");
      }
      for (const json& t : *tokens) {
        if (!t.is_number_integer() || (t.is_number_unsigned() && t.get<uint64_t>() > INT32_MAX) ||
            t.get<int64_t>() < 0 || t.get<int64_t>() > INT32_MAX) {
          return FailedCall(op,
                            "the server's reply to POST /tokenize: a token is not a token id "
                            "(a whole number from 0 to 2^31-1)");
        }
        out.push_back(t.get<int64_t>());
      }
      return out;
    }
    protocol::TokenizeRequest req;
    req.text = text;
    req.add_special = add_special;
    req.parse_special = parse_special;
    auto r = LocalCall(op, req.ToJson());
    if (!r) return r.error();
    auto typed = protocol::TokenizeResponse::FromJson(*r);
    if (!typed) return FailedCall(op, typed.error().message);
    out.assign(typed->tokens.begin(), typed->tokens.end());
    return out;
  }

  Result<json, CallError> Tokenize(const json& request) {
    auto req = protocol::TokenizeRequest::FromJson(request);
    if (!req) return FailedCall(protocol::op::kTokenize, req.error().message);
    auto t = TokensOf(protocol::op::kTokenize, req->text, req->add_special, req->parse_special);
    if (!t) return t.error();
    json out = {{"tokens", *t}};
    if (!Flavored()) out["tokenized_by"] = "model_tokenizer";  // not the server's own
    return out;
  }

  Result<std::string, CallError> TextOf(const std::string& op, const std::vector<int64_t>& tokens) {
    if (Flavored()) {
      auto r = Exchange(op, "POST", "/detokenize", {{"tokens", tokens}}, true);
      if (!r) return r.error();
      auto content = StringField(*r, "content", "the server's reply to POST /detokenize");
      if (!content) return FailedCall(op, content.error().message);
      return content->value_or("");
    }
    protocol::DetokenizeRequest req;
    req.tokens.assign(tokens.begin(), tokens.end());
    auto r = LocalCall(op, req.ToJson());
    if (!r) return r.error();
    auto typed = protocol::DetokenizeResponse::FromJson(*r);
    if (!typed) return FailedCall(op, typed.error().message);
    return typed->text;
  }

  Result<json, CallError> Detokenize(const json& request) {
    auto req = protocol::DetokenizeRequest::FromJson(request);
    if (!req) return FailedCall(protocol::op::kDetokenize, req.error().message);
    auto t = TextOf(protocol::op::kDetokenize,
                    std::vector<int64_t>(req->tokens.begin(), req->tokens.end()));
    if (!t) return t.error();
    return json{{"text", *t}};
  }

  // The model's tokenizer for a server that has none to ask (no /tokenize): the worker program
  // with the cell's model loaded, started when first needed and kept for the model.
  Result<worker::WorkerChannel*, CallError> LocalTokenizer(const std::string& op) {
    if (tokenizer_ && tokenizer_->Alive()) return tokenizer_.get();
    StopTokenizer();
    auto failed = [&](const std::string& why) {
      StopTokenizer();
      return FailedCall(op, fmt::format("the model's tokenizer ({}, for a server without a "
                                        "tokenizer endpoint) failed: {}",
                                        cfg_.tokenizer_program, why));
    };
    if (!HasTokenizer()) return failed("no runtime that loads the model's GGUF is registered");
    if (model_path_.empty()) return failed("no model loaded yet");
    auto ch =
        device::StartLoadedWorker(*cfg_.device, cfg_.tokenizer_program, model_path_, timeout_);
    if (!ch) return failed(ch.error().message);
    tokenizer_ = std::move(*ch);
    return tokenizer_.get();
  }

  Result<json, CallError> LocalCall(const std::string& op, const json& request) {
    auto tok = LocalTokenizer(op);
    if (!tok) return tok.error();
    auto r = (*tok)->Call(request, timeout_);
    if (!r) return FailedCall(op, "the model's tokenizer failed: " + r.error().message);
    return *r;
  }

  void StopTokenizer() {
    if (tokenizer_) tokenizer_->Shutdown(std::chrono::milliseconds(2000));
    tokenizer_.reset();
  }

  // Generated `text` as the model's tokenizer cuts it (no special tokens added or parsed), or
  // nullopt when there is none.
  Result<std::optional<std::vector<int64_t>>, CallError> ModelTokens(const std::string& op,
                                                                     const std::string& text) {
    if (!HasTokenizer()) return std::optional<std::vector<int64_t>>();
    auto t = TokensOf(op, text, false, false);
    if (!t) return t.error();
    return std::optional<std::vector<int64_t>>(std::move(*t));
  }

  // A stream the server gave no `usage` for: its text (reasoning and answer) counted with the
  // model's tokenizer, where there is one.
  Result<void, CallError> CountWithoutUsage(const std::string& op, StreamRecord* r) {
    if (r->usage_completion_tokens) return {};
    int64_t n = 0;
    for (const std::string* text : {&r->reasoning, &r->text}) {
      if (text->empty()) continue;
      auto t = ModelTokens(op, *text);
      if (!t) return t.error();
      if (!*t) return {};
      n += static_cast<int64_t>((*t)->size());
    }
    r->tokenizer_completion_tokens = n;
    return {};
  }

  GenerationRequest Base(int max_tokens, bool suppress_eos) const {
    GenerationRequest g;
    g.api = api_;
    g.flavor = flavor_;
    g.model = served_model_;
    g.max_tokens = max_tokens;
    g.suppress_eos = suppress_eos;
    g.extra = cfg_.spec.body;
    return g;
  }

  StreamOptions Options() const {
    StreamOptions o;
    o.api_key = cfg_.api_key;
    o.timeout = timeout_;
    o.cancel = cfg_.cancel;  // Ctrl-C ends the streams in flight
    return o;
  }

  // `copies` streams of `g` at once; those the server gave no usage for, counted with the
  // model's tokenizer.
  Result<std::vector<Result<Streamed, StreamError>>, CallError> Send(const std::string& op,
                                                                     const GenerationRequest& g,
                                                                     int64_t copies) {
    std::vector<Result<Streamed, StreamError>> out;
    if (copies <= 1) {
      out.push_back(StreamGeneration(*cfg_.client, *base_, g, Options()));
    } else {
      out = StreamConcurrently(*cfg_.client, *base_,
                               std::vector<GenerationRequest>(static_cast<size_t>(copies), g),
                               Options());
    }
    for (auto& s : out) {
      if (!s) continue;
      if (auto st = CountWithoutUsage(op, &s->record); !st) return st.error();
    }
    return out;
  }

  Result<json, CallError> Reply(const std::string& op, Replied r) {
    if (r.ends_cell) {
      return FailedCall(op, fmt::format("the endpoint {}: {}", Where(), r.ends_cell->message));
    }
    r.reply["concurrency"] = concurrency_;
    r.reply["api"] = api_ == Api::kChat ? "chat" : "completions";
    return std::move(r.reply);
  }

  Result<json, CallError> Tg(const json& request) {
    const char* op = protocol::op::kTg;
    if (!base_) return FailedCall(op, "no context: init_context first");
    auto req = protocol::TgRequest::FromJson(request);
    if (!req) return FailedCall(op, req.error().message);
    std::vector<int64_t> ids(req->prompt.begin(), req->prompt.end());
    ids.push_back(req->first_token);
    GenerationRequest g = Base(static_cast<int>(req->n_gen + 1), true);
    if (api_ == Api::kChat) {
      // Messages take text: the depth's tokens as text (the chat template adds its own).
      std::vector<int64_t> text_ids(req->prompt.begin(), req->prompt.end());
      auto text = TextOf(op, text_ids);
      if (!text) return text.error();
      g.prompt = json::array({{{"role", "user"}, {"content", *text}}});
    } else {
      g.prompt = ids;
    }
    auto streams = Send(op, g, concurrency_);
    if (!streams) return streams.error();
    return Reply(op, TgReply(req->n_gen, *streams));
  }

  Result<json, CallError> Ttft(const json& request) {
    const char* op = protocol::op::kTtft;
    if (!base_) return FailedCall(op, "no context: init_context first");
    auto req = protocol::TtftRequest::FromJson(request);
    if (!req) return FailedCall(op, req.error().message);
    GenerationRequest g = Base(1, true);
    std::optional<int64_t> expected;
    if (api_ == Api::kChat) {
      g.prompt = json::array({{{"role", "user"}, {"content", req->text}}});
      if (Flavored()) {
        // Rendered as the request will be: with the body's template options.
        json body = {{"messages", g.prompt}};
        if (g.extra.contains("chat_template_kwargs")) {
          body["chat_template_kwargs"] = g.extra["chat_template_kwargs"];
        }
        auto rendered = RenderedPrompt(op, body);
        if (!rendered) return rendered.error();
        auto t = TokensOf(op, *rendered, true, true);
        if (!t) return t.error();
        expected = static_cast<int64_t>(t->size());
      }
    } else {
      g.prompt = req->text;
      if (HasTokenizer()) {
        auto t = TokensOf(op, req->text, req->add_special, req->parse_special);
        if (!t) return t.error();
        expected = static_cast<int64_t>(t->size());
      }
    }
    auto streams = Send(op, g, concurrency_);
    if (!streams) return streams.error();
    return Reply(op, TtftReply(*streams, expected));
  }

  Result<json, CallError> Chat(const json& request) {
    const char* op = protocol::op::kChat;
    if (!base_) return FailedCall(op, "no context: init_context first");
    auto req = protocol::ChatRequest::FromJson(request);
    if (!req) return FailedCall(op, req.error().message);
    if (req->messages.empty()) {
      return FailedCall(op, "an endpoint renders its own chat template: it takes messages");
    }
    GenerationRequest g = Base(static_cast<int>(req->max_tokens), false);
    g.api = Api::kChat;
    json messages = json::array();
    for (const auto& m : req->messages) {
      messages.push_back({{"role", m.role}, {"content", m.content}});
    }
    g.prompt = messages;
    json kwargs = g.extra.value("chat_template_kwargs", json::object());
    for (const auto& [k, v] : req->template_options.items()) kwargs[k] = v;
    if (!kwargs.empty()) g.extra["chat_template_kwargs"] = kwargs;
    protocol::ChatResponse resp;
    if (Flavored()) {
      json body = {{"messages", messages}};
      if (!kwargs.empty()) body["chat_template_kwargs"] = kwargs;
      auto rendered = RenderedPrompt(op, body);
      if (!rendered) return rendered.error();
      resp.prompt = *rendered;
      resp.template_text = chat_template_;
    }
    resp.template_origin = "server";
    resp.template_options = kwargs;
    if (kwargs.contains("enable_thinking") && kwargs["enable_thinking"].is_boolean()) {
      resp.enable_thinking = kwargs["enable_thinking"].get<bool>();
    }
    auto s = StreamGeneration(*cfg_.client, *base_, g, Options());
    if (!s && (s.error().EndsCell() || s.error().kind == StreamError::Kind::kCancelled)) {
      return FailedCall(op, fmt::format("the endpoint {}: {}", Where(), s.error().message));
    }
    if (!s) {
      // A stall cancelled at the timeout, a stream cut short, a malformed event: this item
      // failed (never a success, never a partial answer), and the cell goes on.
      const int64_t now = http::SteadyNowNs();
      resp.stop = "failed";
      resp.t_start_ns = resp.t_first_token_ns = resp.t_end_ns = now;
      json out = resp.ToJson();
      out["request_failed"] = {{"kind", s.error().KindName()}, {"message", s.error().message}};
      out["stream"] = FailedStream(s.error());
      return out;
    }
    if (auto st = CountWithoutUsage(op, &s->record); !st) return st.error();
    const StreamRecord& r = s->record;
    const std::vector<int64_t> arrivals = TokenArrivals(r);
    resp.n_prompt_tokens = r.usage_prompt_tokens.value_or(0);
    resp.text = r.text;
    resp.stop = r.finish_reason == "length" ? "max_tokens" : "eog";
    resp.t_start_ns = s->t_sent_ns;
    resp.t_first_token_ns = arrivals.empty() ? s->t_end_ns : arrivals.front();
    resp.t_end_ns = std::max(s->t_end_ns, resp.t_first_token_ns);
    bool retokenized = false;
    if (!r.text.empty()) {
      // The answer's ids as the model's tokenizer gives them (the stream carries none).
      auto t = ModelTokens(op, r.text);
      if (!t) return t.error();
      if (*t) {
        resp.tokens.assign((*t)->begin(), (*t)->end());
        retokenized = true;
      }
    }
    json out = resp.ToJson();
    out["tokens_from"] = retokenized || Flavored() ? "retokenized_text" : "none";
    out["stream"] = StreamFacts(*s, req->max_tokens, std::nullopt, /*asked_is_limit=*/true);
    out["reasoning"] = r.reasoning;
    // A thinking mode that spent the whole budget: no answer, never a success.
    out["thinking_exhausted"] =
        r.text.empty() && !r.reasoning.empty() && r.finish_reason == "length";
    return out;
  }

  Result<json, CallError> ResetPeak() {
    protocol::ResetPeakMemoryResponse resp;
    if (!server_) {
      // The server starts inside this cell: its peak is this cell's from its first byte.
      resp.supported = true;
      return json(resp.ToJson());
    }
    const std::string path = fmt::format("/proc/{}/clear_refs", server_->pid());
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      resp.supported = ::write(fd, "5", 1) == 1;
      ::close(fd);
    }
    if (auto m = ReadMemory()) {
      resp.rss = m->rss_bytes;
      resp.hwm = m->hwm_bytes;
    }
    return json(resp.ToJson());
  }

  std::optional<device::ProcessMemory> ReadMemory() const {
    if (!server_ || !cfg_.device) return std::nullopt;
    return cfg_.device->WorkerMemory(static_cast<int>(server_->pid()));
  }

  Result<json, CallError> Memory() {
    auto m = ReadMemory();
    if (!m || m->rss_bytes < 0 || m->hwm_bytes < 0) {
      return FailedCall(protocol::op::kMemory, "the server's memory could not be read");
    }
    protocol::MemoryResponse resp;
    resp.rss = m->rss_bytes;
    resp.hwm = m->hwm_bytes;
    json out = resp.ToJson();
    out["process"] = "server";
    return out;
  }

  void StopServer() {
    if (server_) server_->Stop();
    server_.reset();
    server_key_.clear();
    if (cfg_.spec.start_server) base_.reset();
  }

  ChannelConfig cfg_;
  std::optional<http::Url> base_;  // ".../v1": known from the start, or once the server is up
  Flavor flavor_ = Flavor::kGeneric;
  milliseconds timeout_{300000};
  std::string model_path_;
  std::string served_model_;
  std::string chat_template_;
  int64_t concurrency_ = 1;
  Api api_ = Api::kCompletions;
  std::unique_ptr<TempDir> log_dir_;
  std::unique_ptr<ServerProcess> server_;
  std::string server_key_;
  std::unique_ptr<worker::WorkerChannel> tokenizer_;  // the model's, for counting (no usage)
  int starts_ = 0;
  std::string last_error_;
};

}  // namespace

Result<std::string> ApiKeyFromEnvironment(const EndpointSpec& spec) {
  return ApiKeyFromEnvironment(spec.api_key_env);
}

Result<std::unique_ptr<worker::WorkerChannel>> OpenEndpoint(ChannelConfig config) {
  std::optional<http::Url> base;
  if (!config.spec.start_server) {
    auto url = http::ParseUrl(config.spec.base_url);
    if (!url) return url.error();
    base = *url;
  }
  return std::unique_ptr<worker::WorkerChannel>(
      std::make_unique<EndpointChannel>(std::move(config), std::move(base)));
}

}  // namespace pipette::endpoint
