// The endpoint channel on an in-memory HTTP client (testing::FakeHttpClient): what a server says
// becomes a protocol reply, the API key is cut out of error messages only, and a chat request
// that fails mid-way is a failed item rather than a failed cell. The real llama-server is in
// tests/e2e/openai_runtime_e2e_test.cc.
#include "pipette/endpoint/channel.h"

#include <gtest/gtest.h>

#include "pipette/protocol/ops.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/testing/fake_http_client.h"

namespace pipette::endpoint {
namespace {

using nlohmann::json;

// A running generic server at 127.0.0.1:8080/v1 whose key is "EMPTY" (vLLM's convention for a
// local server): the key is a common word, which a generated text may well contain.
std::unique_ptr<worker::WorkerChannel> Open(testing::FakeHttpClient& client) {
  ChannelConfig cfg;
  cfg.spec.base_url = "http://127.0.0.1:8080/v1";
  cfg.api_key = "EMPTY";
  cfg.client = &client;
  auto ch = OpenEndpoint(std::move(cfg));
  EXPECT_TRUE(ch) << ch.error().message;
  return std::move(*ch);
}

json ChatCall(worker::WorkerChannel& ch) {
  protocol::ChatRequest req;
  req.messages.push_back({"user", "Say EMPTY."});
  req.max_tokens = 8;
  json r = req.ToJson();
  r["id"] = 7;
  auto out = ch.Call(r, std::chrono::milliseconds(1000));
  EXPECT_TRUE(out) << out.error().message;
  return out ? *out : json();
}

TEST(EndpointChannel, AnAnswerIsDataAndKeepsWhatTheKeyMatchesInIt) {
  testing::FakeHttpClient client;
  client.answer = [](const http::Request& r) -> std::vector<std::string> {
    if (r.path == "/props") return {"{}"};  // not llama-server: a generic server
    return {R"(data: {"choices":[{"delta":{"content":"EMPTY"}}]})"
            "\n\n",
            R"(data: {"choices":[{"delta":{},"finish_reason":"stop"}],)"
            R"("usage":{"prompt_tokens":5,"completion_tokens":1}})"
            "\n\ndata: [DONE]\n\n"};
  };
  auto ch = Open(client);
  ASSERT_TRUE(ch->Call({{"op", protocol::op::kHello}, {"id", 1}}, std::chrono::seconds(1)));
  const json out = ChatCall(*ch);
  EXPECT_EQ(out["text"], "EMPTY");  // the answer as the server gave it
  EXPECT_EQ(out["stop"], "eog");
  EXPECT_EQ(out["stream"]["tokens"]["generated_from"], "usage");
  EXPECT_EQ(out["thinking_exhausted"], false);
  // The key went as a bearer token.
  const http::Request& sent = client.requests.back();
  EXPECT_EQ(sent.path, "/chat/completions");
  ASSERT_FALSE(sent.headers.empty());
  EXPECT_EQ(sent.headers[0].second, "Bearer EMPTY");
}

TEST(EndpointChannel, AChatThatFailsMidStreamIsAFailedItemWithTheKeyCutFromItsMessage) {
  testing::FakeHttpClient client;
  client.answer = [](const http::Request& r) -> std::vector<std::string> {
    if (r.path == "/props") return {"{}"};
    return {R"(data: {"error":{"message":"key EMPTY: slot lost"}})"
            "\n\n"};
  };
  auto ch = Open(client);
  ASSERT_TRUE(ch->Call({{"op", protocol::op::kHello}, {"id", 1}}, std::chrono::seconds(1)));
  const json out = ChatCall(*ch);
  EXPECT_EQ(out["stop"], "failed");
  EXPECT_EQ(out["text"], "");
  EXPECT_EQ(out["request_failed"]["kind"], "server_error");
  const std::string message = out["request_failed"]["message"];
  EXPECT_NE(message.find("key [api key]: slot lost"), std::string::npos) << message;
  EXPECT_EQ(out.dump().find("EMPTY"), std::string::npos) << out.dump();
  EXPECT_TRUE(protocol::ChatResponse::FromJson(out).ok());  // a reply the workload reads
}

TEST(EndpointChannel, AnHttpErrorFailsTheCallNamingTheServerNeverTheKey) {
  testing::FakeHttpClient client;
  client.status = 401;
  client.pieces = {R"({"error":{"message":"invalid key EMPTY"}})"};
  auto ch = Open(client);
  ASSERT_TRUE(ch->Call({{"op", protocol::op::kHello}, {"id", 1}}, std::chrono::seconds(1)));
  protocol::ChatRequest req;
  req.messages.push_back({"user", "hi"});
  req.max_tokens = 4;
  auto out = ch->Call(req.ToJson(), std::chrono::milliseconds(1000));
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("HTTP 401: invalid key [api key]"), std::string::npos)
      << out.error().message;
  EXPECT_NE(out.error().message.find("http://127.0.0.1:8080/v1"), std::string::npos);
  EXPECT_EQ(out.error().message.find("EMPTY"), std::string::npos);
}

}  // namespace
}  // namespace pipette::endpoint
