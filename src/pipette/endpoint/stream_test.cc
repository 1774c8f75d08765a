#include "pipette/endpoint/stream.h"

#include <gtest/gtest.h>

#include "pipette/testing/fake_http_client.h"

namespace pipette::endpoint {
namespace {

using FakeClient = testing::FakeHttpClient;

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
  EXPECT_EQ(client.requests.back().path, "/completions");
  ASSERT_FALSE(client.requests.back().headers.empty());
  EXPECT_EQ(client.requests.back().headers[0],
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

TEST(StreamConcurrently, GivesOneResultPerRequestInOrder) {
  FakeClient client;
  // Each request is answered with its own max_tokens as text: results in request order.
  client.answer = [](const http::Request& r) {
    const int n = nlohmann::json::parse(r.body)["max_tokens"];
    return std::vector<std::string>{"data: {\"choices\":[{\"text\":\"" + std::to_string(n) +
                                    "\"}]}\n\ndata: [DONE]\n\n"};
  };
  std::vector<GenerationRequest> reqs(4);
  for (size_t i = 0; i < reqs.size(); ++i) reqs[i].max_tokens = static_cast<int>(i + 1);
  auto out = StreamConcurrently(client, kUrl, reqs, StreamOptions{});
  ASSERT_EQ(out.size(), 4u);
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_TRUE(out[i]) << out[i].error().message;
    EXPECT_EQ(out[i]->record.text, std::to_string(i + 1));
  }
  EXPECT_EQ(client.requests.size(), 4u);
}

}  // namespace
}  // namespace pipette::endpoint
