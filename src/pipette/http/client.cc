#include "pipette/http/client.h"

#include <fmt/format.h>
#include <httplib.h>

#include <charconv>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "pipette/http/text.h"

namespace pipette::http {

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string Url::Origin() const {
  const bool default_port = (scheme == "http" && port == 80) || (scheme == "https" && port == 443);
  const bool v6 = host.find(':') != std::string::npos;
  const std::string h = v6 ? "[" + host + "]" : host;
  return default_port ? fmt::format("{}://{}", scheme, h)
                      : fmt::format("{}://{}:{}", scheme, h, port);
}

Result<Url> ParseUrl(std::string_view text) {
  // Named as written, but for its secrets: a query or fragment, credentials (never accepted).
  auto bad = [&](std::string_view why) {
    return InputError(fmt::format("URL '{}': {}", ServerText(text, "", 200), why));
  };
  // In the request line or a header, it would end one and start another.
  if (HasControlCharacter(text) || text.find(' ') != std::string_view::npos) {
    return bad("no spaces or control characters");
  }
  Url u;
  const size_t sep = text.find("://");
  if (sep == std::string_view::npos) return bad("it needs a scheme (http:// or https://)");
  u.scheme = std::string(text.substr(0, sep));
  if (u.scheme != "http" && u.scheme != "https") {
    return bad(fmt::format("scheme '{}' is not http or https", u.scheme));
  }
  std::string_view rest = text.substr(sep + 3);
  const size_t slash = rest.find_first_of("/?#");  // the authority ends there
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos) {
    // Not repeated: the URL holds a secret.
    return InputError(fmt::format(
        "URL '{}://[credentials]@...': credentials in the URL are not accepted: give the key's "
        "environment variable",
        u.scheme));
  }
  if (path.find_first_of("?#") != std::string_view::npos) return bad("no query or fragment");
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed '[' in the host");
    u.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("junk after the host");
      port_text = after.substr(1);
    }
  } else {
    const size_t colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (u.host.empty()) return bad("no host");
  u.port = u.scheme == "https" ? 443 : 80;
  if (!port_text.empty()) {
    int p = 0;
    auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), p);
    if (ec != std::errc() || ptr != port_text.data() + port_text.size() || p <= 0 || p > 65535) {
      return bad(fmt::format("port '{}' is not a number from 1 to 65535", port_text));
    }
    u.port = p;
  }
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  u.base_path = std::string(path);
  return u;
}

namespace {

Failure Fail(Failure::Kind kind, std::string message) {
  Failure f;
  f.kind = kind;
  f.message = std::move(message);
  return f;
}

// Ends a client's exchange from another thread when the deadline passes or `cancel` is set.
class Watchdog {
 public:
  Watchdog(std::function<void()> stop, std::chrono::steady_clock::time_point deadline,
           const std::atomic<bool>* cancel)
      : thread_([this, stop = std::move(stop), deadline, cancel] {
          std::unique_lock lock(mu_);
          while (!done_) {
            if (std::chrono::steady_clock::now() >= deadline) {
              fired_ = Why::kDeadline;
            } else if (cancel && cancel->load()) {
              fired_ = Why::kCancel;
            }
            if (fired_ != Why::kNone) {
              stop();
              return;
            }
            cv_.wait_for(lock, std::chrono::milliseconds(20));
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  enum class Why { kNone, kDeadline, kCancel };
  Why Fired() {
    std::lock_guard lock(mu_);
    return fired_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  Why fired_ = Why::kNone;
  std::thread thread_;  // last: started once the members it reads exist
};

}  // namespace

Result<Response, Failure> HttpLibClient::Send(const Url& url, const Request& request,
                                              const BodyPiece& on_body,
                                              const std::atomic<bool>* cancel) {
  httplib::Client cli(url.Origin());
  const auto timeout = std::max(request.timeout, std::chrono::milliseconds(1));
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  const auto usecs = std::chrono::duration_cast<std::chrono::microseconds>(timeout - secs);
  cli.set_connection_timeout(secs.count(), usecs.count());
  // The socket timeouts lie past the deadline, so that the watchdog, not a read that happened to
  // be waiting, decides a timeout: one rule for a stall and for a slow whole exchange.
  cli.set_read_timeout(secs.count() + 1, usecs.count());
  cli.set_write_timeout(secs.count() + 1, usecs.count());
  cli.set_keep_alive(false);
  cli.set_follow_location(false);
  cli.set_decompress(true);

  httplib::Request req;
  req.method = request.method;
  req.path = url.base_path + request.path;
  for (const auto& [k, v] : request.headers) {
    // A line break in a value would end the header and start another: never sent. The value
    // (an API key) is not repeated.
    if (HasControlCharacter(k) || HasControlCharacter(v)) {
      return Fail(Failure::Kind::kRefused,
                  fmt::format("{}{}: not sent: header '{}' holds a control character", url.Origin(),
                              req.path, HasControlCharacter(k) ? "?" : k));
    }
    req.headers.emplace(k, v);
  }
  if (request.method != "GET") {
    req.body = request.body;
    req.headers.emplace("Content-Type", request.content_type);
  }
  Response out;
  // Why reading stopped before the end: `on_body` said so, the body passed its bound, or an
  // error's body was read far enough.
  enum class Stop { kNone, kReceiver, kTooLarge, kErrorBodyRead } stop = Stop::kNone;
  size_t read = 0;  // bytes of the body (decompressed) so far
  req.response_handler = [&](const httplib::Response& r) {
    out.status = r.status;
    out.t_status_ns = SteadyNowNs();
    return true;
  };
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    const int64_t t = SteadyNowNs();
    out.t_end_ns = t;
    std::string_view piece(data, n);
    read += n;
    if (out.status >= 300) {
      out.body.append(
          piece.substr(0, kMaxErrorBodyBytes - std::min(out.body.size(), kMaxErrorBodyBytes)));
      if (read > kMaxErrorBodyBytes) {
        out.body_cut = true;
        stop = Stop::kErrorBodyRead;
        return false;
      }
      return true;
    }
    if (read > request.max_body_bytes) {
      stop = Stop::kTooLarge;
      return false;
    }
    if (!on_body) {
      out.body.append(piece);
    } else if (!on_body(piece, t)) {
      stop = Stop::kReceiver;
      return false;
    }
    return true;
  };
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  bool ok = false;
  Watchdog::Why why = Watchdog::Why::kNone;
  {
    Watchdog dog([&cli] { cli.stop(); }, std::chrono::steady_clock::now() + timeout, cancel);
    // Stamped once the watchdog's thread is started, so its start-up is not in the request.
    out.t_sent_ns = SteadyNowNs();
    ok = cli.send(req, res, err);
    why = dog.Fired();
  }
  if (out.t_end_ns == 0) out.t_end_ns = SteadyNowNs();
  const std::string where = url.Origin() + req.path;
  if (why == Watchdog::Why::kDeadline) {
    return Fail(
        Failure::Kind::kTimeout,
        fmt::format("{}: no complete response within {} ms (cancelled)", where, timeout.count()));
  }
  if (why == Watchdog::Why::kCancel || stop == Stop::kReceiver) {
    return Fail(Failure::Kind::kCancelled, fmt::format("{}: cancelled", where));
  }
  if (stop == Stop::kTooLarge) {
    return Fail(Failure::Kind::kTooLarge,
                fmt::format("{}: the response body is larger than {} bytes: not read further",
                            where, request.max_body_bytes));
  }
  if (stop == Stop::kErrorBodyRead) return out;  // the status and the error's first bytes
  if (!ok) {
    switch (err) {
      case httplib::Error::Connection:
        return Fail(Failure::Kind::kConnect,
                    fmt::format("{}: could not connect (is the server up?)", where));
      case httplib::Error::Read:
        if (out.status == 0) {
          return Fail(Failure::Kind::kBroken, fmt::format("{}: no response: the connection "
                                                          "closed or nothing came within {} ms",
                                                          where, timeout.count()));
        }
        return Fail(Failure::Kind::kBroken,
                    fmt::format("{}: the response broke off (connection closed or no bytes for "
                                "{} ms)",
                                where, timeout.count()));
      default:
        return Fail(Failure::Kind::kBroken, fmt::format("{}: {}", where, httplib::to_string(err)));
    }
  }
  out.status = res.status;
  return out;
}

}  // namespace pipette::http
