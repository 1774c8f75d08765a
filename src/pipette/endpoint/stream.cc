#include "pipette/endpoint/stream.h"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

namespace pipette::endpoint {

namespace {

// The server's own words for an HTTP error: OpenAI's {"error":{"message":...}} or the body.
std::string ServerMessage(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("error")) {
    const auto& e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) {
      return e["message"].get<std::string>();
    }
    if (e.is_string()) return e.get<std::string>();
  }
  return body.substr(0, 300);
}

}  // namespace

Result<Streamed> StreamGeneration(http::HttpClient& client, const http::Url& url,
                                  const GenerationRequest& request, const StreamOptions& options) {
  auto body = BuildBody(request);
  if (!body) return body.error();
  http::Request req{.method = "POST",
                    .path = request.api == Api::kChat ? "/chat/completions" : "/completions",
                    .body = *body,
                    .timeout = options.timeout};
  if (!options.api_key.empty())
    req.headers.emplace_back("Authorization", "Bearer " + options.api_key);
  req.headers.emplace_back("Accept", "text/event-stream");
  http::SseParser parser;
  StreamReader reader(request.api);
  std::vector<http::SseEvent> events;
  std::optional<Error> event_error;
  auto on_body = [&](std::string_view piece, int64_t t_ns) {
    events.clear();
    parser.Feed(piece, t_ns, &events);
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
  if (event_error) return RuntimeError(fmt::format("{}: {}", where, event_error->message));
  if (!response) return RuntimeError(response.error().message);
  if (response->status != 200) {
    return RuntimeError(
        fmt::format("{}: HTTP {}: {}", where, response->status, ServerMessage(response->body)));
  }
  const bool cut = parser.Finish();
  if (!reader.record().done) {
    return RuntimeError(fmt::format("{}: the stream ended before [DONE]{} after {} events", where,
                                    cut ? ", mid-event," : "", reader.record().events));
  }
  Streamed out;
  out.t_sent_ns = response->t_sent_ns;
  out.t_status_ns = response->t_status_ns;
  out.t_end_ns = response->t_end_ns;
  out.record = reader.record();
  return out;
}

std::vector<Result<Streamed>> StreamConcurrently(http::HttpClient& client, const http::Url& url,
                                                 const std::vector<GenerationRequest>& requests,
                                                 const StreamOptions& options) {
  std::vector<std::optional<Result<Streamed>>> slots(requests.size());
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
  std::vector<Result<Streamed>> out;
  out.reserve(slots.size());
  for (auto& s : slots) out.push_back(std::move(*s));
  return out;
}

}  // namespace pipette::endpoint
