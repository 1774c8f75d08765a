// HTTP as the controller speaks it to an endpoint (an OpenAI-compatible server): one request, its
// response body handed over piece by piece with the arrival time of each piece, a deadline and a
// cancel flag. HttpClient is the seam: HttpLibClient (cpp-httplib) is the real one, and tests of
// what is built on it use a stand-in server or a fake client.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::http {

// "http://127.0.0.1:8080/v1": where an endpoint is. `base_path` has no trailing slash.
struct Url {
  std::string scheme;  // http or https
  std::string host;
  int port = 0;
  std::string base_path;

  std::string Origin() const;  // "http://127.0.0.1:8080"
  std::string ToString() const { return Origin() + base_path; }
};

// An input error naming the problem ("base_url 'x': ..."), exit code 2.
Result<Url> ParseUrl(std::string_view text);

// A reply read whole (JSON: /props, /v1/models, /tokenize) is far smaller; a streamed generation
// of thousands of tokens, a few MiB. An error's body is read only so far: its first bytes are
// the message, and the rest is not read.
inline constexpr size_t kMaxReplyBytes = size_t{4} << 20;
inline constexpr size_t kMaxStreamBytes = size_t{64} << 20;
inline constexpr size_t kMaxErrorBodyBytes = size_t{64} << 10;

struct Request {
  std::string method = "GET";
  std::string path = {};  // after the URL's base path ("/completions")
  std::vector<std::pair<std::string, std::string>> headers = {};
  std::string body = {};
  std::string content_type = "application/json";
  // The whole exchange, a stalled stream included, must end by then (else kTimeout).
  std::chrono::milliseconds timeout{300000};
  // The most bytes of a successful response's body (after decompression) read: a body kept
  // whole (no `on_body`) or handed over piece by piece. Past it, reading stops (kTooLarge).
  size_t max_body_bytes = kMaxReplyBytes;
};

// Why no complete response came: the server could not be reached, it stalled past the timeout,
// the exchange was cancelled, or the connection broke. An HTTP error status is a response.
struct Failure : Error {
  // kTooLarge: a successful response's body past Request::max_body_bytes; kRefused: a request
  // Pipette would not send (a header holding a control character).
  enum class Kind {
    kConnect,
    kTimeout,
    kCancelled,
    kBroken,
    kTooLarge,
    kRefused
  } kind = Kind::kBroken;
};

struct Response {
  int status = 0;
  // A successful response's body as read, unless it went to `on_body`; an error's (a status of
  // 300 or more) first kMaxErrorBodyBytes, `body_cut` when there was more.
  std::string body;
  bool body_cut = false;
  int64_t t_sent_ns = 0;    // just before the request was written
  int64_t t_status_ns = 0;  // the status line and headers read
  int64_t t_end_ns = 0;     // the last byte read
};

// Each piece of the body as it arrives, with the steady clock's nanoseconds at arrival; false
// stops reading (the response is then a Failure of kind kCancelled).
using BodyPiece = std::function<bool(std::string_view piece, int64_t t_ns)>;

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // Sends `request` to `url`; `cancel` (may be null) set from another thread ends the exchange.
  virtual Result<Response, Failure> Send(const Url& url, const Request& request,
                                         const BodyPiece& on_body = nullptr,
                                         const std::atomic<bool>* cancel = nullptr) = 0;
};

// On cpp-httplib (Debian's libcpp-httplib-dev): one connection per request, no keep-alive, so
// every request starts from the same state. Thread-safe: concurrent Sends use their own
// connections.
class HttpLibClient : public HttpClient {
 public:
  Result<Response, Failure> Send(const Url& url, const Request& request,
                                 const BodyPiece& on_body = nullptr,
                                 const std::atomic<bool>* cancel = nullptr) override;
};

// The steady clock's nanoseconds (the clock of every timestamp the controller takes itself).
int64_t SteadyNowNs();

}  // namespace pipette::http
