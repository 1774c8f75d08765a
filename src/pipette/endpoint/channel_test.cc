// The endpoint channel on an in-memory HTTP client (testing::FakeHttpClient): what a server says
// becomes a protocol reply, the API key is cut out of error messages only, and a chat request
// that fails mid-way is a failed item rather than a failed cell. The real llama-server is in
// tests/e2e/openai_runtime_e2e_test.cc.
#include "pipette/endpoint/channel.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "pipette/http/text.h"
#include "pipette/protocol/ops.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/testing/fake_http_client.h"
#include "pipette/util/temp_dir.h"

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

// A GGUF file of no tensors and no metadata in `dir`: a model load_model can read.
std::string EmptyGguf(const TempDir& dir) {
  const std::string model = (dir.path() / "m.gguf").string();
  std::ofstream f(model, std::ios::binary);
  const char header[] = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 0, 0, 0, 0,
                         0,   0,   0,   0,   0, 0, 0, 0, 0, 0, 0, 0};
  f.write(header, sizeof header);
  return model;
}

// Every field read from a server is type-checked where it is read: a reply of another shape
// fails the call with the field named, never an uncaught JSON type_error (which left the run
// abandoned).
TEST(EndpointChannel, AReplyOfAnotherShapeFailsTheCallNamingTheField) {
  // /props says build_info is a number.
  {
    testing::FakeHttpClient client;
    client.answer = [](const http::Request&) -> std::vector<std::string> {
      return {R"({"build_info": 123})"};
    };
    auto ch = Open(client);
    auto out = ch->Call({{"op", protocol::op::kHello}, {"id", 1}}, std::chrono::seconds(1));
    ASSERT_FALSE(out);
    EXPECT_NE(out.error().message.find("GET /props: 'build_info' is not a string"),
              std::string::npos)
        << out.error().message;
  }
  // /v1/models answers an array, then objects without ids, then {"data": 5}.
  TempDir dir("pipette-channel-test");
  const std::string model = EmptyGguf(dir);
  for (const char* models :
       {"[1,2,3]", R"({"data":[{"id":7}]})", R"({"data":5})", "{}", R"({"data":[1]})"}) {
    SCOPED_TRACE(models);
    testing::FakeHttpClient client;
    client.answer = [models](const http::Request& r) -> std::vector<std::string> {
      if (r.path == "/props") return {"{}"};
      return {models};
    };
    auto ch = Open(client);
    ASSERT_TRUE(ch->Call({{"op", protocol::op::kHello}, {"id", 1}}, std::chrono::seconds(1)));
    auto out = ch->Call({{"op", protocol::op::kLoadModel}, {"id", 2}, {"path", model}},
                        std::chrono::seconds(1));
    ASSERT_FALSE(out);
    EXPECT_NE(out.error().message.find("did not list its models"), std::string::npos)
        << out.error().message;
  }
}

// llama-server's own replies (/props at init_context, /tokenize): a context, a slot count or a
// token that is not a whole number in range is an error naming it.
TEST(EndpointChannel, LlamaServersCountsAreCheckedWhereTheyAreRead) {
  for (const char* props : {R"({"build_info":"b1","default_generation_settings":{"n_ctx":"512"}})",
                            R"({"build_info":"b1","default_generation_settings":{"n_ctx":1e300}})",
                            R"({"build_info":"b1","total_slots":-1})",
                            R"({"build_info":"b1","default_generation_settings":[1]})",
                            R"({"build_info":"b1","chat_template":5})"}) {
    SCOPED_TRACE(props);
    testing::FakeHttpClient client;
    client.answer = [props](const http::Request&) -> std::vector<std::string> { return {props}; };
    auto ch = Open(client);
    ASSERT_TRUE(ch->Call({{"op", protocol::op::kHello}, {"id", 1}}, std::chrono::seconds(1)));
    auto out = ch->Call({{"op", protocol::op::kInitContext}, {"id", 2}, {"n_ctx", 256}},
                        std::chrono::seconds(1));
    ASSERT_FALSE(out);
    EXPECT_NE(out.error().message.find("the server's reply to GET /props: '"), std::string::npos)
        << out.error().message;
  }
  testing::FakeHttpClient client;
  client.answer = [](const http::Request& r) -> std::vector<std::string> {
    if (r.path == "/tokenize") return {R"({"tokens":[1,"two",3]})"};
    return {R"({"build_info":"b1"})"};
  };
  auto ch = Open(client);
  ASSERT_TRUE(ch->Call({{"op", protocol::op::kHello}, {"id", 1}}, std::chrono::seconds(1)));
  auto out = ch->Call({{"op", protocol::op::kTokenize}, {"id", 2}, {"text", "hi"}},
                      std::chrono::seconds(1));
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("a token is not a token id"), std::string::npos)
      << out.error().message;
}

// A 401 body that echoes the key after 254 bytes of padding: redacted before it is cut, so not
// one character of the key is left; and a 50 MB error message is cut to one bound.
TEST(EndpointChannel, AnErrorBodyIsRedactedThenCutToOneBound) {
  const std::string key = "sk-test-0123456789abcdefghijklmnopqrstu";
  TempDir dir("pipette-channel-test");
  const std::string model = EmptyGguf(dir);
  for (const std::string& body :
       {std::string(254, 'x') + "Bearer " + key + std::string(100, 'y'),
        R"({"error":{"message":")" + std::string(50 << 20, 'm') + R"("}})"}) {
    testing::FakeHttpClient client;
    client.answer = [&body](const http::Request& r) -> std::vector<std::string> {
      if (r.path == "/props") return {"{}"};
      return {body};
    };
    ChannelConfig cfg;
    cfg.spec.base_url = "http://127.0.0.1:8080/v1";
    cfg.api_key = key;
    cfg.client = &client;
    auto opened = OpenEndpoint(std::move(cfg));
    ASSERT_TRUE(opened);
    std::unique_ptr<worker::WorkerChannel> ch = std::move(*opened);
    ASSERT_TRUE(ch->Call({{"op", protocol::op::kHello}, {"id", 1}}, std::chrono::seconds(1)));
    client.status = 401;
    for (const char* op : {protocol::op::kChat, protocol::op::kLoadModel}) {
      protocol::ChatRequest req;
      req.messages.push_back({"user", "hi"});
      json r = op == std::string(protocol::op::kChat) ? json(req.ToJson())
                                                      : json{{"op", op}, {"path", model}};
      auto out = ch->Call(r, std::chrono::seconds(1));
      ASSERT_FALSE(out);
      const std::string& m = out.error().message;
      EXPECT_LT(m.size(), 800u) << op;
      EXPECT_EQ(m.find(key.substr(0, 4)), std::string::npos) << m;
      EXPECT_EQ(ch->StderrTail().find(key.substr(0, 4)), std::string::npos);
    }
    client.status = 200;
  }
}

// A key variable that holds a line break would inject a header: refused naming the variable,
// never its value, as bad input.
TEST(ApiKeyFromEnvironment, AControlCharacterIsRefusedNamingTheVariableOnly) {
  ::setenv("PIPETTE_TEST_KEY", "sk-abc\r\nX-Injected: 1", 1);
  auto key = ApiKeyFromEnvironment("PIPETTE_TEST_KEY");
  ::unsetenv("PIPETTE_TEST_KEY");
  ASSERT_FALSE(key);
  EXPECT_EQ(key.error().exit_code, 2);
  EXPECT_NE(key.error().message.find("PIPETTE_TEST_KEY holds a control character"),
            std::string::npos)
      << key.error().message;
  EXPECT_EQ(key.error().message.find("sk-abc"), std::string::npos);
  ::setenv("PIPETTE_TEST_KEY", "sk-abc", 1);
  auto ok = ApiKeyFromEnvironment("PIPETTE_TEST_KEY");
  ::unsetenv("PIPETTE_TEST_KEY");
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, "sk-abc");
}

}  // namespace
}  // namespace pipette::endpoint
