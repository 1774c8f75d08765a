#include "pipette/endpoint/openai_stream.h"

#include <gtest/gtest.h>

namespace pipette::endpoint {
namespace {

using nlohmann::json;

http::SseEvent Ev(std::string data, int64_t t) { return http::SseEvent{"", std::move(data), t}; }

TEST(BuildBody, StreamsGreedilyWithUsageAndLlamaServersFields) {
  GenerationRequest r;
  r.model = "smollm2";
  r.prompt = json::array({1, 2, 3});
  r.max_tokens = 8;
  auto body = BuildBody(r);
  ASSERT_TRUE(body) << body.error().message;
  json j = json::parse(*body);
  EXPECT_EQ(j["prompt"], json::array({1, 2, 3}));
  EXPECT_EQ(j["max_tokens"], 8);
  EXPECT_EQ(j["stream"], true);
  EXPECT_EQ(j["stream_options"]["include_usage"], true);
  EXPECT_EQ(j["temperature"], 0);
  EXPECT_EQ(j["ignore_eos"], true);
  EXPECT_EQ(j["cache_prompt"], false);
  EXPECT_EQ(j["model"], "smollm2");
}

TEST(BuildBody, AGenericServerGetsOnlyStandardFieldsAndChatGetsMessages) {
  GenerationRequest r;
  r.api = Api::kChat;
  r.flavor = Flavor::kGeneric;
  r.prompt = json::array({{{"role", "user"}, {"content", "hi"}}});
  r.extra = {{"top_p", 1}};
  json j = json::parse(*BuildBody(r));
  EXPECT_FALSE(j.contains("ignore_eos"));
  EXPECT_FALSE(j.contains("cache_prompt"));
  EXPECT_FALSE(j.contains("prompt"));
  EXPECT_EQ(j["messages"][0]["content"], "hi");
  EXPECT_EQ(j["top_p"], 1);
}

TEST(BuildBody, AServerSaidToHonourIgnoreEosGetsItOnFixedLengthGenerationsOnly) {
  GenerationRequest r;
  r.flavor = Flavor::kGeneric;
  r.extra = {{"ignore_eos", true}, {"top_p", 1}};
  EXPECT_EQ(json::parse(*BuildBody(r))["ignore_eos"], true);  // a speed test: fixed length
  r.suppress_eos = false;                                     // gen: stops where the model does
  const json chat = json::parse(*BuildBody(r));
  EXPECT_EQ(chat["ignore_eos"], false);
  EXPECT_EQ(chat["top_p"], 1);
}

TEST(BuildBody, ExtraKeysMayNotReplaceWhatPipetteSets) {
  GenerationRequest r;
  r.extra = {{"temperature", 0.8}};
  auto body = BuildBody(r);
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().exit_code, 2);
  EXPECT_NE(body.error().message.find("'temperature' is set by Pipette"), std::string::npos);
}

// Captured from the pinned llama-server (build/bin/llama-server, SmolLM2, /v1/completions with
// stream_options.include_usage), ids and timestamps trimmed: one chunk per token, the last chunk
// with the finish reason, usage and timings, then [DONE].
TEST(StreamReader, ReadsCompletionChunksUsageAndTimings) {
  StreamReader reader(Api::kCompletions);
  const std::vector<http::SseEvent> events = {
      Ev(R"({"choices":[{"text":"_","index":0,"logprobs":null,"finish_reason":null}],)"
         R"("object":"text_completion"})",
         10),
      Ev(R"({"choices":[{"text":"t","index":0,"logprobs":null,"finish_reason":null}],)"
         R"("object":"text_completion"})",
         20),
      Ev(R"({"choices":[{"text":"utorial","index":0,"logprobs":null,"finish_reason":null}],)"
         R"("object":"text_completion"})",
         25),
      Ev(R"({"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],)"
         R"("object":"text_completion","usage":{"completion_tokens":3,"prompt_tokens":3,)"
         R"("total_tokens":6,"prompt_tokens_details":{"cached_tokens":0}},"timings":{"cache_n":0,)"
         R"("prompt_n":3,"prompt_ms":16.943,"prompt_per_token_ms":5.647666666666667,)"
         R"("prompt_per_second":177.06427433158234,"predicted_n":3,"predicted_ms":14.301,)"
         R"("predicted_per_token_ms":7.1505,"predicted_per_second":139.8503601146773}})",
         30),
      Ev("[DONE]", 32)};
  for (const auto& e : events) ASSERT_TRUE(reader.Add(e));
  const StreamRecord& r = reader.record();
  EXPECT_EQ(r.content_ns, (std::vector<int64_t>{10, 20, 25}));
  EXPECT_EQ(r.content_tokens, (std::vector<int>{-1, -1, -1}));  // no ids on /v1: usage counts
  EXPECT_EQ(r.text, "_tutorial");
  EXPECT_EQ(r.finish_reason, "length");
  EXPECT_EQ(r.usage_prompt_tokens, 3);
  EXPECT_EQ(r.usage_completion_tokens, 3);
  EXPECT_EQ(r.server_prompt_n, 3);
  EXPECT_DOUBLE_EQ(*r.server_prompt_ms, 16.943);
  EXPECT_EQ(r.server_predicted_n, 3);
  EXPECT_DOUBLE_EQ(*r.server_predicted_ms, 14.301);
  EXPECT_TRUE(r.done);
  EXPECT_EQ(r.events, 4);
}

TEST(StreamReader, CountsTokenIdsWhereTheServerSendsThem) {
  StreamReader reader(Api::kCompletions);
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"text":"ab"}],"tokens":[7,8]})", 5)));
  EXPECT_EQ(reader.record().content_tokens, (std::vector<int>{2}));
}

TEST(StreamReader, CountsTokensPerChunkFromTheServersRunningCount) {
  // llama-server with timings_per_token: predicted_n grows by the tokens each chunk holds; a
  // token that ends mid-character is held back and sent with the next (two in one chunk), and
  // the final chunk adds none.
  StreamReader reader(Api::kCompletions);
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"text":"a"}],"timings":{"predicted_n":1}})", 1)));
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"text":"é"}],"timings":{"predicted_n":3}})", 2)));
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"text":"","finish_reason":"length"}],)"
                            R"("usage":{"completion_tokens":3},"timings":{"predicted_n":3}})",
                            3)));
  EXPECT_EQ(reader.record().content_ns, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(reader.record().content_tokens, (std::vector<int>{1, 2}));
}

TEST(StreamReader, TokensOfAChunkWithoutTextGoWithTheNextTextOrTheEnd) {
  // A chat's first chunk names the role only, yet the server counted the first token in it: the
  // client sees that token with the next chunk of text. A token held back to the end arrives with
  // the final chunk; the final chunk's own count (an end-of-sequence token) is no arrival.
  StreamReader reader(Api::kChat);
  ASSERT_TRUE(reader.Add(Ev(
      R"({"choices":[{"delta":{"role":"assistant","content":null}}],"timings":{"predicted_n":1}})",
      1)));
  ASSERT_TRUE(reader.Add(
      Ev(R"({"choices":[{"delta":{"reasoning_content":"hm"}}],"timings":{"predicted_n":2}})", 2)));
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"delta":{}}],"timings":{"predicted_n":3}})", 3)));
  ASSERT_TRUE(reader.Add(
      Ev(R"({"choices":[{"delta":{},"finish_reason":"stop"}],"timings":{"predicted_n":4}})", 4)));
  const StreamRecord& r = reader.record();
  // The token held after reasoning is reasoning's: no answer token.
  EXPECT_EQ(r.reasoning_ns, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(r.reasoning_tokens, (std::vector<int>{2, 1}));
  EXPECT_TRUE(r.content_ns.empty());
}

TEST(StreamReader, AFinalChunkWithUsageAloneStillTakesTheHeldTokens) {
  StreamReader reader(Api::kCompletions);
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"text":"a"}],"timings":{"predicted_n":1}})", 1)));
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"text":""}],"timings":{"predicted_n":2}})", 2)));
  ASSERT_TRUE(reader.Add(
      Ev(R"({"choices":[],"usage":{"completion_tokens":2},"timings":{"predicted_n":2}})", 3)));
  EXPECT_EQ(reader.record().content_ns, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(reader.record().content_tokens, (std::vector<int>{1, 1}));
  EXPECT_EQ(reader.record().usage_completion_tokens, 2);
}

TEST(StreamReader, KeepsChatReasoningApartFromTheAnswer) {
  StreamReader reader(Api::kChat);
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"delta":{"role":"assistant","content":null}}]})", 1)));
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"delta":{"reasoning_content":"think"}}]})", 2)));
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"delta":{"content":"42"}}]})", 3)));
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"delta":{},"finish_reason":"stop"}]})", 4)));
  const StreamRecord& r = reader.record();
  EXPECT_EQ(r.reasoning, "think");
  EXPECT_EQ(r.reasoning_ns, (std::vector<int64_t>{2}));
  EXPECT_EQ(r.text, "42");
  EXPECT_EQ(r.content_ns, (std::vector<int64_t>{3}));  // the role-only chunk is no token
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_FALSE(r.done);  // no [DONE]: the caller decides whether the stream was cut
}

TEST(StreamReader, AnErrorMidStreamOrJunkIsAnErrorAndKeepsWhatCameBefore) {
  StreamReader reader(Api::kCompletions);
  ASSERT_TRUE(reader.Add(Ev(R"({"choices":[{"text":"a"}]})", 1)));
  auto err = reader.Add(Ev(R"({"error":{"message":"context full","code":500}})", 2));
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().message.find("context full"), std::string::npos);
  auto junk = reader.Add(Ev("not json", 3));
  ASSERT_FALSE(junk);
  EXPECT_NE(junk.error().message.find("not a JSON object"), std::string::npos);
  EXPECT_EQ(reader.record().text, "a");
}

}  // namespace
}  // namespace pipette::endpoint
