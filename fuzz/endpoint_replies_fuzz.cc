// An endpoint's replies (endpoint/channel.h): a running server at 127.0.0.1:8080/v1 whose answers
// are the fuzzer's bytes, spoken to as the controller does: hello (GET /props), load_model
// (GET /v1/models), init_context (GET /props on llama-server), tokenize, tg, ttft and chat
// (streamed). The bytes are the replies in request order, cut at each 0x1E byte; a reply's first
// byte picks its HTTP status (below 0xF0: 200; else 401, 404, 500 or 503) and 0x1F bytes cut its
// body into the pieces the socket gives. The first byte of all picks completions or chat.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/endpoint/channel.h"
#include "pipette/http/client.h"
#include "pipette/protocol/ops.h"

namespace {

using nlohmann::json;

class FuzzHttpClient : public pipette::http::HttpClient {
 public:
  explicit FuzzHttpClient(std::string_view replies) : replies_(replies) {}

  pipette::Result<pipette::http::Response, pipette::http::Failure> Send(
      const pipette::http::Url&, const pipette::http::Request&,
      const pipette::http::BodyPiece& on_body, const std::atomic<bool>*) override {
    std::string_view reply;
    {
      std::lock_guard lock(mu_);  // streams of a concurrency above 1 come from threads
      const size_t cut = replies_.find('\x1e');
      reply = replies_.substr(0, cut);
      replies_.remove_prefix(cut == std::string_view::npos ? replies_.size() : cut + 1);
    }
    pipette::http::Response r;
    r.status = 200;
    if (!reply.empty()) {
      static constexpr int kErrors[] = {401, 404, 500, 503};
      const auto b = static_cast<unsigned char>(reply[0]);
      if (b >= 0xF0) r.status = kErrors[b & 3];
      reply.remove_prefix(1);
    }
    int64_t t = 1000;
    r.t_sent_ns = 1;
    r.t_status_ns = 500;
    while (true) {
      const size_t cut = reply.find('\x1f');
      const std::string_view piece = reply.substr(0, cut);
      t += 1000;
      r.t_end_ns = t;
      if (r.status < 300 && on_body) {
        if (!on_body(piece, t)) {
          pipette::http::Failure f;
          f.kind = pipette::http::Failure::Kind::kCancelled;
          f.message = "cancelled";
          return f;
        }
      } else {
        r.body += piece;
      }
      if (cut == std::string_view::npos) break;
      reply.remove_prefix(cut + 1);
    }
    return r;
  }

 private:
  std::mutex mu_;
  std::string_view replies_;
};

// An empty GGUF (no metadata, no tensors) for load_model: one file per process, removed at exit.
std::string g_model;

void RemoveModel() { std::remove(g_model.c_str()); }

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char path[] = "/tmp/pipette-fuzz-XXXXXX.gguf";
  const int fd = mkstemps(path, 5);
  if (fd < 0) std::abort();
  const char header[24] = {'G', 'G', 'U', 'F', 3};
  if (write(fd, header, sizeof header) != sizeof header) std::abort();
  close(fd);
  g_model = path;
  std::atexit(RemoveModel);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.empty()) return 0;
  const bool chat = (bytes[0] & 1) != 0;
  bytes.remove_prefix(1);
  FuzzHttpClient client(bytes);
  pipette::endpoint::ChannelConfig cfg;
  cfg.spec.base_url = "http://127.0.0.1:8080/v1";
  cfg.api_key = "sk-fuzz-secret";
  cfg.client = &client;
  auto opened = pipette::endpoint::OpenEndpoint(std::move(cfg));
  if (!opened) std::abort();  // the configuration is Pipette's own: it must open
  auto& ch = **opened;
  namespace op = pipette::protocol::op;
  const std::chrono::milliseconds timeout(1000);
  const json calls[] = {
      {{"op", op::kHello}},
      {{"op", op::kLoadModel}, {"path", g_model}},
      {{"op", op::kInitContext},
       {"n_ctx", 256},
       {"options", {{"api", chat ? "chat" : "completions"}, {"concurrency", 2}}}},
      {{"op", op::kTokenize}, {"text", "hi"}},
      {{"op", op::kTg}, {"prompt", {1, 2}}, {"first_token", 3}, {"n_gen", 4}},
      {{"op", op::kTtft}, {"text", "hello"}},
      {{"op", op::kChat}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}, {"max_tokens", 4}},
  };
  int64_t id = 0;
  for (json call : calls) {
    call["id"] = ++id;
    auto reply = ch.Call(call, timeout);
    if (!reply && reply.error().broken) break;
    if (!reply && id <= 3) break;  // no session without hello, a model and a context
  }
  return 0;
}
