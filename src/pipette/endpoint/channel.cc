// The endpoint channel (endpoint/channel.h): the worker protocol's ops answered by an
// OpenAI-compatible server. This file dispatches the ops and shapes their replies; the HTTP
// exchange is endpoint/server_link.h, a started server's lifecycle and memory
// endpoint/started_server.h, the tokenizer and the count of tokens without `usage`
// endpoint/tokens.h, the model file's facts endpoint/model_info.h, the streams endpoint/stream.h
// and the figures' replies endpoint/replies.h.
#include "pipette/endpoint/channel.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "pipette/endpoint/model_info.h"
#include "pipette/endpoint/replies.h"
#include "pipette/endpoint/server_link.h"
#include "pipette/endpoint/started_server.h"
#include "pipette/endpoint/stream.h"
#include "pipette/endpoint/tokens.h"
#include "pipette/http/text.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/ops.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/speed_ops.h"
#include "pipette/protocol/version.h"

namespace pipette::endpoint {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using worker::CallError;
using worker::FailedCall;

class EndpointChannel : public worker::WorkerChannel {
 public:
  EndpointChannel(ChannelConfig cfg, std::optional<http::Url> base)
      : cfg_(std::move(cfg)),
        link_(*cfg_.client, cfg_.api_key,
              cfg_.spec.start_server ? "the started server" : cfg_.spec.base_url),
        tokens_(link_, cfg_.device, cfg_.tokenizer_program),
        server_(cfg_.spec, *cfg_.client, cfg_.device, cfg_.cancel) {
    link_.SetBase(std::move(base));
  }
  ~EndpointChannel() override { Stop(); }

  Result<json, CallError> Call(json request, milliseconds timeout) override {
    const std::string op = request.value("op", "");
    link_.SetTimeout(timeout);
    // Every field read from a server is type-checked where it is read; a reply of a shape no
    // check foresaw still fails the call, never the run.
    try {
      return Answer(op, request);
    } catch (const json::exception& e) {
      last_error_ = link_.Redact(
          fmt::format("a reply of the endpoint {} has an unexpected shape: {}", Where(), e.what()));
      return FailedCall(op, last_error_);
    }
  }

  std::string StderrTail() const override {
    std::string tail = server_.LogTail(30);
    if (!last_error_.empty()) tail += (tail.empty() ? "" : "\n") + last_error_;
    return tail;
  }
  int Pid() const override { return server_.Pid(); }
  bool Alive() const override { return !server_.Running() || server_.Alive(); }
  void Shutdown(milliseconds) override { Stop(); }

 private:
  Result<json, CallError> Answer(const std::string& op, const json& request) {
    Result<json, CallError> r = FailedCall(op, "unknown op '" + op + "'");
    if (op == protocol::op::kHello) {
      r = Hello();
    } else if (op == protocol::op::kLoadModel) {
      r = LoadModel(request);
    } else if (op == protocol::op::kInitContext) {
      r = InitContext(request);
    } else if (op == protocol::op::kTokenize && tokens_.Available()) {
      r = Tokenize(request);
    } else if (op == protocol::op::kDetokenize && tokens_.Available()) {
      r = Detokenize(request);
    } else if (op == protocol::op::kTg) {
      r = Tg(request);
    } else if (op == protocol::op::kTtft) {
      r = Ttft(request);
    } else if (op == protocol::op::kChat) {
      r = Chat(request);
    } else if (op == protocol::op::kResetPeakMemory && cfg_.spec.start_server) {
      r = server_.ResetPeak();
    } else if (op == protocol::op::kMemory && cfg_.spec.start_server) {
      r = server_.Memory();
    } else if (op == protocol::op::kShutdown) {
      Stop();
      r = json::object();
    }
    if (!r) {
      CallError e = r.error();
      e.message = link_.Redact(e.message);
      last_error_ = e.message;
      return e;
    }
    json out = link_.Redacted(std::move(*r));
    out["id"] = request.value("id", 0);
    out["ok"] = true;
    return out;
  }

  const std::string& Where() const { return link_.Where(); }

  // The started server (and with it its base URL) and the tokenizer's worker.
  void StopServer() {
    server_.Stop();
    if (cfg_.spec.start_server) link_.SetBase(std::nullopt);
  }
  void Stop() {
    StopServer();
    tokens_.Stop();
  }

  Result<json, CallError> Hello() {
    json build = {{"endpoint", cfg_.spec.ToJson()}};
    std::string version;
    if (cfg_.spec.start_server) {
      link_.SetFlavor(cfg_.spec.server_bundled ? Flavor::kLlamaServer : Flavor::kGeneric);
      if (!cfg_.spec.server_command.empty()) version = ServerVersion(cfg_.spec.server_command[0]);
      if (!version.empty())
        link_.SetFlavor(Flavor::kLlamaServer);  // it answers as llama-server does
    } else {
      // A running server: llama-server answers /props with its build.
      auto props = link_.Exchange(protocol::op::kHello, "GET", "/props", json(), true);
      auto info = props ? StringField(*props, "build_info", "the server's reply to GET /props")
                        : Result<std::optional<std::string>>(std::optional<std::string>());
      if (!info) return FailedCall(protocol::op::kHello, info.error().message);
      if (*info) {
        link_.SetFlavor(Flavor::kLlamaServer);
        version = http::ServerText(**info, cfg_.api_key, 100);
      } else if (!props && props.error().message.find("could not connect") != std::string::npos) {
        return FailedCall(protocol::op::kHello, fmt::format("the endpoint {} is down: {}", Where(),
                                                            props.error().message));
      }
    }
    build["flavor"] = link_.Flavored() ? "llama-server" : "generic";
    protocol::HelloResponse h;
    h.runtime = cfg_.runtime;
    h.runtime_version = version.empty() ? "unknown" : version;
    h.runtime_build = build;
    h.pid = Pid();
    h.ops = {protocol::op::kHello,   protocol::op::kLoadModel, protocol::op::kInitContext,
             protocol::op::kTg,      protocol::op::kTtft,      protocol::op::kChat,
             protocol::op::kShutdown};
    if (tokens_.Available()) {  // the server's own, else the model's (a worker, on first use)
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
    if (tokens_.ModelPath() != req->path) StopServer();  // another model: another server
    tokens_.SetModel(req->path);                         // and another tokenizer
    json endpoint = json::object();
    if (!cfg_.spec.start_server) {
      // The running server must be up and serve the model asked for.
      auto listed = link_.ServedModels(protocol::op::kLoadModel);
      if (!listed) return listed.error();
      const std::vector<std::string>& ids = *listed;
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
      const std::vector<std::string> argv =
          server_.Argv(tokens_.ModelPath(), req->n_ctx, threads, slots);
      auto started = server_.Ensure(argv);
      if (!started) {
        StopServer();  // the server before is gone too: no request goes to its port
        return FailedCall(op, started.error().message);
      }
      if (*started) {
        http::Url url = server_.Process().url();
        url.base_path = "/v1";
        link_.SetBase(url);
      }
      applied["server_started"] = *started;
      applied["server_argv"] = argv;
      applied["server_pid"] = server_.Process().pid();
      applied["slots"] = slots;
    }
    const int64_t t1 = http::SteadyNowNs();
    if (link_.Flavored()) {
      auto props = link_.Exchange(op, "GET", "/props", json(), true);
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

  Result<json, CallError> Tokenize(const json& request) {
    auto req = protocol::TokenizeRequest::FromJson(request);
    if (!req) return FailedCall(protocol::op::kTokenize, req.error().message);
    auto t =
        tokens_.TokensOf(protocol::op::kTokenize, req->text, req->add_special, req->parse_special);
    if (!t) return t.error();
    json out = {{"tokens", *t}};
    if (!link_.Flavored()) out["tokenized_by"] = "model_tokenizer";  // not the server's own
    return out;
  }

  Result<json, CallError> Detokenize(const json& request) {
    auto req = protocol::DetokenizeRequest::FromJson(request);
    if (!req) return FailedCall(protocol::op::kDetokenize, req.error().message);
    auto t = tokens_.TextOf(protocol::op::kDetokenize,
                            std::vector<int64_t>(req->tokens.begin(), req->tokens.end()));
    if (!t) return t.error();
    return json{{"text", *t}};
  }

  GenerationRequest Base(int max_tokens, bool suppress_eos) const {
    GenerationRequest g;
    g.api = api_;
    g.flavor = link_.ServerFlavor();
    g.model = served_model_;
    g.max_tokens = max_tokens;
    g.suppress_eos = suppress_eos;
    g.extra = cfg_.spec.body;
    return g;
  }

  StreamOptions Options() const {
    StreamOptions o;
    o.api_key = cfg_.api_key;
    o.timeout = link_.Timeout();
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
      out.push_back(StreamGeneration(*cfg_.client, *link_.Base(), g, Options()));
    } else {
      out = StreamConcurrently(*cfg_.client, *link_.Base(),
                               std::vector<GenerationRequest>(static_cast<size_t>(copies), g),
                               Options());
    }
    for (auto& s : out) {
      if (!s) continue;
      if (auto st = tokens_.CountWithoutUsage(op, &s->record); !st) return st.error();
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
    if (!link_.Base()) return FailedCall(op, "no context: init_context first");
    auto req = protocol::TgRequest::FromJson(request);
    if (!req) return FailedCall(op, req.error().message);
    std::vector<int64_t> ids(req->prompt.begin(), req->prompt.end());
    ids.push_back(req->first_token);
    GenerationRequest g = Base(static_cast<int>(req->n_gen + 1), true);
    if (api_ == Api::kChat) {
      // Messages take text: the depth's tokens as text (the chat template adds its own).
      std::vector<int64_t> text_ids(req->prompt.begin(), req->prompt.end());
      auto text = tokens_.TextOf(op, text_ids);
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
    if (!link_.Base()) return FailedCall(op, "no context: init_context first");
    auto req = protocol::TtftRequest::FromJson(request);
    if (!req) return FailedCall(op, req.error().message);
    GenerationRequest g = Base(1, true);
    std::optional<int64_t> expected;
    if (api_ == Api::kChat) {
      g.prompt = json::array({{{"role", "user"}, {"content", req->text}}});
      if (link_.Flavored()) {
        // Rendered as the request will be: with the body's template options.
        json body = {{"messages", g.prompt}};
        if (g.extra.contains("chat_template_kwargs")) {
          body["chat_template_kwargs"] = g.extra["chat_template_kwargs"];
        }
        auto rendered = link_.RenderedPrompt(op, body);
        if (!rendered) return rendered.error();
        auto t = tokens_.TokensOf(op, *rendered, true, true);
        if (!t) return t.error();
        expected = static_cast<int64_t>(t->size());
      }
    } else {
      g.prompt = req->text;
      if (tokens_.Available()) {
        auto t = tokens_.TokensOf(op, req->text, req->add_special, req->parse_special);
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
    if (!link_.Base()) return FailedCall(op, "no context: init_context first");
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
    // The server stops on them itself (and leaves them out of the text, as the OpenAI API does;
    // its finish_reason does not tell a stop sequence from the end of generation).
    if (!req->stop.empty()) g.extra["stop"] = req->stop;
    protocol::ChatResponse resp;
    if (link_.Flavored()) {
      json body = {{"messages", messages}};
      if (!kwargs.empty()) body["chat_template_kwargs"] = kwargs;
      auto rendered = link_.RenderedPrompt(op, body);
      if (!rendered) return rendered.error();
      resp.prompt = *rendered;
      resp.template_text = chat_template_;
    }
    resp.template_origin = "server";
    resp.template_options = kwargs;
    if (kwargs.contains("enable_thinking") && kwargs["enable_thinking"].is_boolean()) {
      resp.enable_thinking = kwargs["enable_thinking"].get<bool>();
    }
    auto s = StreamGeneration(*cfg_.client, *link_.Base(), g, Options());
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
    if (auto st = tokens_.CountWithoutUsage(op, &s->record); !st) return st.error();
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
      auto t = tokens_.ModelTokens(op, r.text);
      if (!t) return t.error();
      if (*t) {
        resp.tokens.assign((*t)->begin(), (*t)->end());
        retokenized = true;
      }
    }
    json out = resp.ToJson();
    out["tokens_from"] = retokenized || link_.Flavored() ? "retokenized_text" : "none";
    out["stream"] = StreamFacts(*s, req->max_tokens, std::nullopt, /*asked_is_limit=*/true);
    out["reasoning"] = r.reasoning;
    // A thinking mode that spent the whole budget: no answer, never a success.
    out["thinking_exhausted"] =
        r.text.empty() && !r.reasoning.empty() && r.finish_reason == "length";
    return out;
  }

  ChannelConfig cfg_;
  ServerLink link_;        // the HTTP exchange, the flavour, the base once known
  EndpointTokens tokens_;  // the model's tokenizer, and counting without usage
  StartedServer server_;   // the server Pipette starts (server:), when it does
  std::string served_model_;
  std::string chat_template_;
  int64_t concurrency_ = 1;
  Api api_ = Api::kCompletions;
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
