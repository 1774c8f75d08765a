#include "pipette/endpoint/stream.h"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "pipette/http/text.h"
#include "pipette/util/json_parse.h"

namespace pipette::endpoint {

namespace {

// The server's own words for an HTTP error: OpenAI's {"error":{"message":...}} or the body; the
// key cut out of it before it is cut to its bound (http::ServerText).
std::string ServerMessage(const http::Response& response, const std::string& secret) {
  auto j = ParseJsonBounded(response.body, "the error's body");
  std::string words = response.body;
  if (j && j->is_object() && j->contains("error")) {
    const auto& e = (*j)["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) {
      words = e["message"].get<std::string>();
    } else if (e.is_string()) {
      words = e.get<std::string>();
    }
  } else if (response.body_cut) {
    words += " ...";
  }
  return http::ServerText(words, secret);
}

StreamError Fail(StreamError::Kind kind, std::string message) {
  StreamError e;
  e.kind = kind;
  e.message = std::move(message);
  return e;
}

}  // namespace

const char* StreamError::KindName() const {
  switch (kind) {
    case Kind::kConnect:
      return "connect";
    case Kind::kHttp:
      return "http_status";
    case Kind::kTimeout:
      return "timeout";
    case Kind::kCut:
      return "cut";
    case Kind::kServerError:
      return "server_error";
    case Kind::kCancelled:
      return "cancelled";
  }
  return "?";
}

Result<Streamed, StreamError> StreamGeneration(http::HttpClient& client, const http::Url& url,
                                               const GenerationRequest& request,
                                               const StreamOptions& options) {
  using K = StreamError::Kind;
  auto body = BuildBody(request);
  if (!body) return Fail(K::kHttp, body.error().message);
  http::Request req{.method = "POST",
                    .path = request.api == Api::kChat ? "/chat/completions" : "/completions",
                    .body = *body,
                    .timeout = options.timeout};
  if (!options.api_key.empty())
    req.headers.emplace_back("Authorization", "Bearer " + options.api_key);
  req.headers.emplace_back("Accept", "text/event-stream");
  req.max_body_bytes = http::kMaxStreamBytes;
  http::SseParser parser;
  StreamReader reader(request.api, request.max_tokens, options.api_key);
  std::vector<http::SseEvent> events;
  std::optional<Error> event_error;
  auto on_body = [&](std::string_view piece, int64_t t_ns) {
    events.clear();
    if (auto st = parser.Feed(piece, t_ns, &events); !st) {
      event_error = st.error();
      return false;
    }
    for (const auto& ev : events) {
      if (auto r = reader.Add(ev); !r) {
        event_error = r.error();
        return false;  // no point reading on
      }
    }
    return true;
  };
  auto response = client.Send(url, req, on_body, options.cancel);
  const std::string where = url.ToString() + req.path;
  if (event_error) return Fail(K::kServerError, fmt::format("{}: {}", where, event_error->message));
  if (!response) {
    switch (response.error().kind) {
      case http::Failure::Kind::kConnect:
        return Fail(K::kConnect, response.error().message);
      case http::Failure::Kind::kTimeout:
        return Fail(K::kTimeout, response.error().message);
      case http::Failure::Kind::kCancelled:
        return Fail(K::kCancelled, response.error().message);
      case http::Failure::Kind::kBroken:
        return Fail(K::kCut, response.error().message);
      case http::Failure::Kind::kTooLarge:
        return Fail(K::kServerError, response.error().message);
      case http::Failure::Kind::kRefused:
        return Fail(K::kHttp, response.error().message);
    }
  }
  if (response->status != 200) {
    return Fail(K::kHttp, fmt::format("{}: HTTP {}: {}", where, response->status,
                                      ServerMessage(*response, options.api_key)));
  }
  const bool cut = parser.Finish();
  if (!reader.record().done) {
    return Fail(K::kCut, fmt::format("{}: the stream ended before [DONE]{} after {} events", where,
                                     cut ? ", mid-event," : "", reader.record().events));
  }
  Streamed out;
  out.t_sent_ns = response->t_sent_ns;
  out.t_status_ns = response->t_status_ns;
  out.t_end_ns = response->t_end_ns;
  out.record = reader.record();
  return out;
}

std::vector<Result<Streamed, StreamError>> StreamConcurrently(
    http::HttpClient& client, const http::Url& url, const std::vector<GenerationRequest>& requests,
    const StreamOptions& options) {
  std::vector<std::optional<Result<Streamed, StreamError>>> slots(requests.size());
  std::mutex mu;
  std::condition_variable cv;
  size_t waiting = 0;
  bool go = false;
  std::vector<std::thread> threads;
  threads.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    threads.emplace_back([&, i] {
      {
        std::unique_lock lock(mu);
        ++waiting;
        cv.notify_all();
        cv.wait(lock, [&] { return go; });
      }
      auto r = StreamGeneration(client, url, requests[i], options);
      std::lock_guard lock(mu);
      slots[i].emplace(std::move(r));
    });
  }
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return waiting == requests.size(); });
    go = true;
  }
  cv.notify_all();
  for (auto& t : threads) t.join();
  std::vector<Result<Streamed, StreamError>> out;
  out.reserve(slots.size());
  for (auto& s : slots) out.push_back(std::move(*s));
  return out;
}

}  // namespace pipette::endpoint
