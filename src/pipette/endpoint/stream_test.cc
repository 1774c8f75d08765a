#include "pipette/endpoint/stream.h"

#include <gtest/gtest.h>

namespace pipette::endpoint {
namespace {

// A scripted HttpClient: answers every request with `status` and hands `pieces` to the reader,
// stamped 1000, 2000, ...; keeps the last request.
class FakeClient : public http::HttpClient {
 public:
  int status = 200;
  std::vector<std::string> pieces;
  http::Request last;

  Result<http::Response, http::Failure> Send(const http::Url&, const http::Request& request,
                                             const http::BodyPiece& on_body,
                                             const std::atomic<bool>*) override {
    last = request;
    http::Response r;
    r.status = status;
    r.t_sent_ns = 1;
    r.t_status_ns = 500;
    int64_t t = 0;
    for (const auto& p : pieces) {
      t += 1000;
      r.body += p;
      r.t_end_ns = t;
      if (status < 300 && on_body && !on_body(p, t)) {
        http::Failure f;
        f.kind = http::Failure::Kind::kCancelled;
        f.message = "cancelled";
        return f;
      }
    }
    return r;
  }
};

const http::Url kUrl{"http", "127.0.0.1", 8080, "/v1"};

TEST(StreamGeneration, MeasuresEachChunksArrivalAcrossSplitPieces) {
  FakeClient client;
  client.pieces = {"data: {\"choices\":[{\"text\":\"a\"}]}\n", "\ndata: {\"choices\":[{\"te",
                   "xt\":\"b\",\"finish_reason\":\"length\"}],\"usage\":{\"completion_tokens\":2}}"
                   "\n\ndata: [DONE]\n\n"};
  GenerationRequest req;
  req.prompt = nlohmann::json::array({1});
  req.max_tokens = 2;
  auto s = StreamGeneration(client, kUrl, req, StreamOptions{.api_key = "sk-secret"});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->record.content_ns, (std::vector<int64_t>{2000, 3000}));
  EXPECT_EQ(s->record.text, "ab");
  EXPECT_EQ(s->record.usage_completion_tokens, 2);
  EXPECT_EQ(s->t_sent_ns, 1);
  EXPECT_EQ(s->t_end_ns, 3000);
  EXPECT_EQ(client.last.path, "/completions");
  ASSERT_FALSE(client.last.headers.empty());
  EXPECT_EQ(client.last.headers[0],
            (std::pair<std::string, std::string>{"Authorization", "Bearer sk-secret"}));
}

TEST(StreamGeneration, AnHttpErrorGivesTheServersMessageAndNeverTheKey) {
  FakeClient client;
  client.status = 401;
  client.pieces = {R"({"error":{"message":"Invalid API Key","type":"authentication_error"}})"};
  GenerationRequest req;
  req.api = Api::kChat;
  auto s = StreamGeneration(client, kUrl, req, StreamOptions{.api_key = "sk-secret"});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("HTTP 401: Invalid API Key"), std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("/v1/chat/completions"), std::string::npos);
  EXPECT_EQ(s.error().message.find("sk-secret"), std::string::npos);
}

TEST(StreamGeneration, AStreamWithoutDoneIsCutAndSaysSo) {
  FakeClient client;
  client.pieces = {"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choi"};
  auto s = StreamGeneration(client, kUrl, GenerationRequest{}, StreamOptions{});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("ended before [DONE], mid-event, after 1 events"),
            std::string::npos)
      << s.error().message;
}

TEST(StreamGeneration, AServerErrorEventEndsTheRequest) {
  FakeClient client;
  client.pieces = {"data: {\"error\":{\"message\":\"slot unavailable\"}}\n\n",
                   "data: {\"choices\":[{\"text\":\"never read\"}]}\n\n"};
  auto s = StreamGeneration(client, kUrl, GenerationRequest{}, StreamOptions{});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("slot unavailable"), std::string::npos);
}

}  // namespace
}  // namespace pipette::endpoint
