#include "pipette/endpoint/replies.h"

#include <gtest/gtest.h>

#include "pipette/protocol/speed_ops.h"

namespace pipette::endpoint {
namespace {

using nlohmann::json;

// A completed stream: answer chunks at `at` holding `tokens` each (-1: the server did not say).
Streamed Stream(std::vector<int64_t> at, std::vector<int> tokens, std::optional<int64_t> usage) {
  Streamed s;
  s.t_sent_ns = 100;
  s.t_status_ns = 110;
  s.t_end_ns = at.empty() ? 200 : at.back() + 5;
  s.record.content_ns = std::move(at);
  s.record.content_tokens = std::move(tokens);
  s.record.usage_completion_tokens = usage;
  s.record.usage_prompt_tokens = 4;
  s.record.finish_reason = "length";
  s.record.server_prompt_ms = 0.5;
  s.record.server_predicted_ms = 0.3;
  s.record.done = true;
  return s;
}

StreamError Error(StreamError::Kind kind, std::string message) {
  StreamError e;
  e.kind = kind;
  e.message = std::move(message);
  return e;
}

TEST(TokenArrivals, AChunkOfTwoTokensGivesTwoArrivals) {
  StreamRecord r;
  r.content_ns = {10, 20, 30};
  r.content_tokens = {1, 2, -1};
  r.reasoning_ns = {5};
  r.reasoning_tokens = {1};
  EXPECT_EQ(TokenArrivals(r), (std::vector<int64_t>{5, 10, 20, 20, 30}));
}

TEST(TgReply, TheFirstArrivalStartsTheClockAndEveryLaterTokenIsAStep) {
  std::vector<Result<Streamed, StreamError>> s;
  s.push_back(Stream({150, 160, 170, 180}, {1, 1, 1, 1}, 4));
  Replied r = TgReply(3, s);
  ASSERT_FALSE(r.ends_cell);
  auto tg = protocol::TgResponse::FromJson(r.reply);
  ASSERT_TRUE(tg) << tg.error().message;
  EXPECT_EQ(tg->n_gen, 3);
  EXPECT_EQ(tg->t_start_ns, 150);
  EXPECT_EQ(tg->token_end_ns, (std::vector<int64_t>{160, 170, 180}));
  EXPECT_TRUE(tg->tokens.empty());
  const json& f = r.reply["streams"][0];
  EXPECT_EQ(f["tokens"]["asked"], 4);
  EXPECT_EQ(f["tokens"]["generated"], 4);
  EXPECT_EQ(f["tokens"]["generated_from"], "usage");
  EXPECT_EQ(f["tokens"]["streamed_counted_by"], "server_per_chunk");
  EXPECT_FALSE(f["tokens"].contains("mismatch"));
  EXPECT_EQ(f["server"]["prompt_ms"], 0.5);
}

TEST(TgReply, CountsThatDisagreeAreRecorded) {
  std::vector<Result<Streamed, StreamError>> s;
  s.push_back(Stream({150, 160, 170}, {-1, -1, -1}, 4));  // a generic server: no per-chunk count
  Replied r = TgReply(3, s);
  const json& t = r.reply["streams"][0]["tokens"];
  EXPECT_EQ(t["streamed_counted_by"], "chunks");
  EXPECT_EQ(t["mismatch"], "usage says 4 generated, 3 streamed");
  // Fewer tokens than asked (a server that stopped at end-of-sequence): recorded, and not a
  // success.
  std::vector<Result<Streamed, StreamError>> short_one;
  short_one.push_back(Stream({150, 160}, {1, 1}, 2));
  const json short_reply = TgReply(3, short_one).reply;
  EXPECT_EQ(short_reply["streams"][0]["tokens"]["mismatch"], "4 asked, 2 generated");
  EXPECT_EQ(short_reply["streams"][0]["kind"], "short");
  EXPECT_EQ(short_reply["request_failed"]["message"],
            "the server streamed 2 token(s) of the 4 asked");
}

TEST(TgReply, WithoutUsageTheModelsTokenizerCountsAndSaysSo) {
  std::vector<Result<Streamed, StreamError>> s;
  s.push_back(Stream({150, 160, 170}, {-1, -1, -1}, std::nullopt));
  Replied plain = TgReply(2, s);  // no tokenizer either: the chunks are the count
  EXPECT_EQ(plain.reply["streams"][0]["tokens"]["generated_from"], "chunks");
  s[0]->record.tokenizer_completion_tokens = 3;
  const json t = TgReply(2, s).reply["streams"][0]["tokens"];
  EXPECT_EQ(t["generated_from"], "tokenizer");
  EXPECT_EQ(t["tokenizer"], 3);
  EXPECT_EQ(t["generated"], 3);
  EXPECT_FALSE(t.contains("mismatch"));
  // A text of more tokens than chunks: the arrivals were not one per token.
  s[0]->record.tokenizer_completion_tokens = 4;
  EXPECT_EQ(TgReply(2, s).reply["streams"][0]["tokens"]["mismatch"],
            "the tokenizer counts 4 in the text, 3 streamed; 3 asked, 4 generated");
}

TEST(TgReply, AStallOrACutStreamIsAFailedRequestAndTheOthersStillCount) {
  std::vector<Result<Streamed, StreamError>> s;
  s.push_back(Error(StreamError::Kind::kTimeout, "no complete response within 50 ms"));
  s.push_back(Stream({150, 160, 170}, {1, 1, 1}, 3));
  Replied r = TgReply(2, s);
  ASSERT_FALSE(r.ends_cell);
  EXPECT_EQ(r.reply["streams"][0]["kind"], "timeout");
  EXPECT_EQ(r.reply["t_start_ns"], 150);  // from the stream that completed

  std::vector<Result<Streamed, StreamError>> none;
  none.push_back(Error(StreamError::Kind::kCut, "the stream ended before [DONE]"));
  Replied failed = TgReply(2, none);
  ASSERT_FALSE(failed.ends_cell);
  EXPECT_EQ(failed.reply["request_failed"]["kind"], "cut");
  EXPECT_FALSE(protocol::TgResponse::FromJson(failed.reply).ok());  // not a measurement
}

TEST(TgReply, AServerThatIsDownOrAnswersAnHttpErrorEndsTheCell) {
  for (auto kind : {StreamError::Kind::kConnect, StreamError::Kind::kHttp}) {
    std::vector<Result<Streamed, StreamError>> s;
    s.push_back(Stream({150, 160, 170}, {1, 1, 1}, 3));
    s.push_back(Error(kind, "HTTP 500: boom"));
    Replied r = TgReply(2, s);
    ASSERT_TRUE(r.ends_cell);
    EXPECT_EQ(r.ends_cell->message, "HTTP 500: boom");
  }
}

TEST(TtftReply, FromSendingToTheFirstTokenAndThePromptCountChecked) {
  std::vector<Result<Streamed, StreamError>> s;
  s.push_back(Stream({180}, {1}, 1));
  Replied r = TtftReply(s, 5);
  auto ttft = protocol::TtftResponse::FromJson(r.reply);
  ASSERT_TRUE(ttft) << ttft.error().message;
  EXPECT_EQ(ttft->t_start_ns, 100);
  EXPECT_EQ(ttft->t_first_token_ns, 180);
  EXPECT_EQ(ttft->n_prompt_tokens, 4);  // the server's usage
  EXPECT_EQ(ttft->token, -1);
  EXPECT_EQ(r.reply["streams"][0]["tokens"]["mismatch"],
            "prompt of 5 tokens expected, usage says 4");
}

}  // namespace
}  // namespace pipette::endpoint
