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

// What a hostile or broken server can send ends that stream with a recorded error, bounded:
// a count far past what was asked (no allocation of it), a count that is no count, a 10 MB line,
// a 50 MB error message (mid-stream or in an HTTP error), a body echoing the key after padding.
TEST(StreamGeneration, WhatNoServerShouldSendIsAnErrorOfTheStreamBounded) {
  const std::string key = "sk-test-0123456789abcdefghijklmnopqrstu";
  struct Case {
    int status;
    std::string body;
    const char* says;
  };
  const std::string done = "\n\ndata: [DONE]\n\n";
  const std::vector<Case> cases = {
      {200, R"(data: {"choices":[{"text":"a"}],"timings":{"predicted_n":2000000000}})" + done,
       "predicted_n is 2000000000: not a count of 0 to 32"},
      {200,
       R"(data: {"choices":[{"text":"a","finish_reason":"length"}],)"
       R"("usage":{"completion_tokens":1e300}})" +
           done,
       "completion_tokens is 1e+300: not a count"},
      {200, R"(data: {"choices":[],"usage":{"completion_tokens":-1}})" + done,
       "is -1: not a count"},
      {200, R"(data: {"choices":[],"usage":{"prompt_tokens":"3"}})" + done,
       "is \"3\": not a count"},
      {200, R"(data: {"choices":[],"timings":{"prompt_ms":-5}})" + done, "not a time"},
      {200,
       R"(data: {"choices":[{"text":"a"}],"timings":{"predicted_n":3}})"
       "\n\n"
       R"(data: {"choices":[{"text":"b"}],"timings":{"predicted_n":2}})" +
           done,
       "predicted_n went back from 3 to 2"},
      {200, "data: " + std::string(10 << 20, 'x') + done, "longer than 1048576 bytes"},
      {200, R"(data: {"error":{"message":")" + std::string(500 << 10, 'm') + R"("}})" + done,
       "more bytes]"},
      {200, R"(data: {"error":{"message":")" + std::string(50 << 20, 'm') + R"("}})" + done,
       "longer than 1048576 bytes"},
      {200, "data: " + std::string(254, 'p') + key + std::string(100, 'q') + done,
       "is not a JSON object"},
      {500, R"({"error":{"message":")" + std::string(50 << 20, 'm') + R"("}})", "more bytes]"},
      {401, std::string(254, 'p') + "Bearer " + key + std::string(100, 'q'), "HTTP 401"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    FakeClient client;
    client.status = c.status;
    client.pieces = {c.body};
    GenerationRequest req;
    req.max_tokens = 8;
    auto s = StreamGeneration(client, kUrl, req, StreamOptions{.api_key = key});
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().kind,
              c.status == 200 ? StreamError::Kind::kServerError : StreamError::Kind::kHttp);
    EXPECT_NE(s.error().message.find(c.says), std::string::npos)
        << s.error().message.substr(0, 500);
    EXPECT_LT(s.error().message.size(), 700u);
    EXPECT_EQ(s.error().message.find(key.substr(0, 4)), std::string::npos) << s.error().message;
  }
}

}  // namespace
}  // namespace pipette::endpoint
