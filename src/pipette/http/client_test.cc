// HttpLibClient against a stand-in server: cpp-httplib's own httplib::Server on 127.0.0.1 in this
// process, scripted to refuse, fail, stream, stall and break off. The real endpoint (llama-server)
// is tested end to end in tests/e2e.
#include "pipette/http/client.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace pipette::http {
namespace {

// A server on a free port of 127.0.0.1, stopped (and its thread joined) by the destructor.
class StandIn {
 public:
  explicit StandIn(const std::function<void(httplib::Server&)>& routes) {
    routes(server_);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~StandIn() {
    Release();
    server_.stop();
    thread_.join();
  }
  Url url() const { return Url{"http", "127.0.0.1", port_, "/v1"}; }
  // Lets a handler that waits for the test (a stall) return.
  void Release() {
    {
      std::lock_guard lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
  }
  void WaitForRelease() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return released_; });
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
};

// POSTs "{}" to /completions, appending every streamed piece to `seen`.
Result<Response, Failure> PostCollecting(const Url& url, std::string* seen) {
  HttpLibClient client;
  return client.Send(url, Request{.method = "POST", .path = "/completions", .body = "{}"},
                     [seen](std::string_view piece, int64_t) {
                       seen->append(piece);
                       return true;
                     });
}

TEST(ParseUrl, TakesSchemeHostPortAndPath) {
  auto u = ParseUrl("http://127.0.0.1:8080/v1/");
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(u->scheme, "http");
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 8080);
  EXPECT_EQ(u->base_path, "/v1");
  EXPECT_EQ(u->ToString(), "http://127.0.0.1:8080/v1");
  auto v6 = ParseUrl("https://[::1]/v1");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 443);
  EXPECT_EQ(v6->Origin(), "https://[::1]");
}

TEST(ParseUrl, RefusesWhatItCannotUseWithTheReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"127.0.0.1:8080", "needs a scheme"},
      {"ftp://host/v1", "not http or https"},
      {"http://user:key@host/v1", "credentials in the URL are not accepted"},
      {"http://host:99999/v1", "from 1 to 65535"},
      {"http://host/v1?x=1", "no query"},
      {"http:///v1", "no host"},
      {"http://host/v1?api_key=SECRET", "no query"},
      {"http://host/v1#SECRET", "no query"},
      {"http://host?key=SECRET", "no query"},
      {"http://host/v1\r\nX-Injected: 1", "no spaces or control characters"},
  };
  for (const auto& [text, why] : cases) {
    auto u = ParseUrl(text);
    ASSERT_FALSE(u) << text;
    EXPECT_EQ(u.error().exit_code, 2) << text;
    EXPECT_NE(u.error().message.find(why), std::string::npos) << u.error().message;
    const bool secret = std::string(text).find_first_of("@?#\r") != std::string::npos;
    // The URL is named, except one holding a secret (credentials, a query string) or a line
    // break: never repeated whole.
    EXPECT_EQ(u.error().message.find(text) != std::string::npos, !secret) << u.error().message;
    for (const char* part : {"user:key", "SECRET", "\r", "\n"}) {
      EXPECT_EQ(u.error().message.find(part), std::string::npos) << u.error().message;
    }
  }
}

TEST(HttpLibClient, ARefusedConnectionIsAConnectFailure) {
  Url url;
  {
    StandIn gone([](httplib::Server&) {});
    url = gone.url();
  }  // stopped: nothing listens on its port now
  HttpLibClient client;
  auto r = client.Send(
      url, Request{.method = "GET", .path = "/models", .timeout = std::chrono::seconds(5)});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Failure::Kind::kConnect);
  EXPECT_NE(r.error().message.find("could not connect"), std::string::npos) << r.error().message;
}

TEST(HttpLibClient, AnHttpErrorIsAResponseWithItsStatusAndBody) {
  StandIn s([](httplib::Server& svr) {
    svr.Post("/v1/completions", [](const httplib::Request&, httplib::Response& res) {
      res.status = 500;
      res.set_content(R"({"error":{"message":"boom"}})", "application/json");
    });
  });
  std::string seen;
  auto r = PostCollecting(s.url(), &seen);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->body, R"({"error":{"message":"boom"}})");
  EXPECT_TRUE(seen.empty());  // an error body is not handed to the stream's reader
}

TEST(HttpLibClient, AStreamArrivesPieceByPieceWithOrderedArrivalTimes) {
  StandIn s([](httplib::Server& svr) {
    svr.Post("/v1/completions", [](const httplib::Request& req, httplib::Response& res) {
      EXPECT_EQ(req.body, R"({"stream":true})");
      EXPECT_EQ(req.get_header_value("Authorization"), "Bearer k");
      res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
        for (int i = 0; i < 3; ++i) {
          const std::string ev = "data: " + std::to_string(i) + "\n\n";
          sink.write(ev.data(), ev.size());
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        sink.done();
        return true;
      });
    });
  });
  HttpLibClient client;
  std::vector<int64_t> times;
  std::string seen;
  Request req{.method = "POST", .path = "/completions", .body = R"({"stream":true})"};
  req.headers.emplace_back("Authorization", "Bearer k");
  auto r = client.Send(s.url(), req, [&](std::string_view piece, int64_t t) {
    seen.append(piece);
    times.push_back(t);
    return true;
  });
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(seen, "data: 0\n\ndata: 1\n\ndata: 2\n\n");
  EXPECT_TRUE(r->body.empty());  // handed over, not kept a second time
  ASSERT_FALSE(times.empty());
  EXPECT_LE(r->t_sent_ns, r->t_status_ns);
  for (size_t i = 1; i < times.size(); ++i) EXPECT_LE(times[i - 1], times[i]);
  EXPECT_LE(r->t_status_ns, times.front());
  EXPECT_EQ(r->t_end_ns, times.back());
}

TEST(HttpLibClient, AStalledStreamEndsAtTheDeadlineAsATimeout) {
  StandIn s([&s](httplib::Server& svr) {
    svr.Post("/v1/completions", [&s](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [&s](size_t, httplib::DataSink& sink) {
        sink.write("data: 0\n\n", 9);
        s.WaitForRelease();  // stalls until the test is over
        return false;
      });
    });
  });
  HttpLibClient client;
  auto r = client.Send(s.url(), Request{.method = "POST",
                                        .path = "/completions",
                                        .body = "{}",
                                        .timeout = std::chrono::milliseconds(300)});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Failure::Kind::kTimeout);
  EXPECT_NE(r.error().message.find("within 300 ms"), std::string::npos) << r.error().message;
}

TEST(HttpLibClient, TheCancelFlagEndsAnExchangeInFlight) {
  StandIn s([&s](httplib::Server& svr) {
    svr.Get("/v1/slow", [&s](const httplib::Request&, httplib::Response& res) {
      s.WaitForRelease();
      res.set_content("late", "text/plain");
    });
  });
  HttpLibClient client;
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel = true;
  });
  auto r = client.Send(s.url(), Request{.method = "GET", .path = "/slow"}, nullptr, &cancel);
  canceller.join();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Failure::Kind::kCancelled);
}

TEST(HttpLibClient, AStreamCutOffByTheServerIsABrokenResponse) {
  StandIn s([](httplib::Server& svr) {
    svr.Post("/v1/completions", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
        sink.write("data: 0\n\n", 9);
        return false;  // the server gives up mid-stream: the connection closes unterminated
      });
    });
  });
  std::string seen;
  auto r = PostCollecting(s.url(), &seen);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Failure::Kind::kBroken);
  EXPECT_EQ(seen, "data: 0\n\n");  // what came before the break was handed over
}

TEST(HttpLibClient, TheReaderStoppingIsACancel) {
  StandIn s([](httplib::Server& svr) {
    svr.Post("/v1/completions", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
        for (int i = 0; i < 100 && sink.is_writable(); ++i) sink.write("data: x\n\n", 9);
        sink.done();
        return true;
      });
    });
  });
  HttpLibClient client;
  auto r = client.Send(s.url(), Request{.method = "POST", .path = "/completions", .body = "{}"},
                       [](std::string_view, int64_t) { return false; });
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Failure::Kind::kCancelled);
}

// A successful body past its bound is not read on (kTooLarge): kept whole or streamed, and after
// decompression (the server compresses what the client accepts), so a small compressed body
// cannot grow without bound either.
TEST(HttpLibClient, ABodyPastItsBoundStopsTheExchange) {
  const std::string big(8 << 20, '0');
  StandIn s([&big](httplib::Server& svr) {
    svr.Get("/v1/models", [&big](const httplib::Request&, httplib::Response& res) {
      res.set_content(big, "application/json");
    });
    svr.Post("/v1/completions", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
        const std::string comment = ": " + std::string(4094, 'k') + "\n";
        for (int i = 0; i < 4096 && sink.is_writable(); ++i) {
          sink.write(comment.data(), comment.size());
        }
        sink.done();
        return true;
      });
    });
  });
  HttpLibClient client;
  Request get{.method = "GET", .path = "/models"};
  get.max_body_bytes = 1 << 20;
  auto whole = client.Send(s.url(), get);
  ASSERT_FALSE(whole);
  EXPECT_EQ(whole.error().kind, Failure::Kind::kTooLarge);
  EXPECT_NE(whole.error().message.find("larger than 1048576 bytes"), std::string::npos)
      << whole.error().message;
  // Decompressed: a client that accepts gzip gets the same bound on what it inflates.
  get.headers.emplace_back("Accept-Encoding", "gzip");
  whole = client.Send(s.url(), get);
  ASSERT_FALSE(whole);
  EXPECT_EQ(whole.error().kind, Failure::Kind::kTooLarge);

  Request post{.method = "POST", .path = "/completions", .body = "{}"};
  post.max_body_bytes = 1 << 20;
  size_t handed = 0;
  auto streamed = client.Send(s.url(), post, [&](std::string_view piece, int64_t) {
    handed += piece.size();
    return true;
  });
  ASSERT_FALSE(streamed);
  EXPECT_EQ(streamed.error().kind, Failure::Kind::kTooLarge);
  EXPECT_LE(handed, size_t{1} << 20);
}

// An error's body is read only so far: the status and its first bytes are the response.
TEST(HttpLibClient, AnErrorsBodyIsReadOnlyToItsBound) {
  StandIn s([](httplib::Server& svr) {
    svr.Post("/v1/completions", [](const httplib::Request&, httplib::Response& res) {
      res.status = 401;
      res.set_content(std::string(1 << 20, 'e'), "text/plain");
    });
  });
  std::string seen;
  auto r = PostCollecting(s.url(), &seen);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(r->body.size(), kMaxErrorBodyBytes);
  EXPECT_TRUE(r->body_cut);
}

// A header value with a line break (an API key variable holding CRLF) would inject a header:
// never sent, and the value is not repeated.
TEST(HttpLibClient, AHeaderWithAControlCharacterIsNeverSent) {
  std::atomic<int> requests{0};
  StandIn s([&requests](httplib::Server& svr) {
    svr.Get("/v1/models", [&requests](const httplib::Request&, httplib::Response& res) {
      ++requests;
      res.set_content("{}", "application/json");
    });
  });
  HttpLibClient client;
  Request req{.method = "GET", .path = "/models"};
  req.headers.emplace_back("Authorization", "Bearer secret\r\nX-Injected: yes");
  auto r = client.Send(s.url(), req);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Failure::Kind::kRefused);
  EXPECT_NE(r.error().message.find("'Authorization' holds a control character"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().message.find("secret"), std::string::npos);
  EXPECT_EQ(requests, 0);
}

}  // namespace
}  // namespace pipette::http
