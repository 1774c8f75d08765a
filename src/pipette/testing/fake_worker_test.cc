// The test fake itself: every op answers in the protocol's typed shapes, failures come where
// they are told to, and a bad request is recorded.
#include "pipette/testing/fake_worker.h"

#include <gtest/gtest.h>

#include <cmath>

#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/speed_ops.h"

namespace pipette::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

class FakeWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ch = fake_.Launch({"fake"});
    ASSERT_TRUE(ch.ok());
    ch_ = std::move(*ch);
  }
  json Ok(json req) {
    auto r = ch_->Call(std::move(req), milliseconds(10));
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : json();
  }
  void Ready(FakeModel m = {}) {
    fake_.SetModel("/m.gguf", m);
    Ok({{"op", "load_model"}, {"path", "/m.gguf"}});
    Ok({{"op", "init_context"}, {"n_ctx", 64}});
  }
  FakeWorker fake_;
  std::unique_ptr<worker::WorkerChannel> ch_;
};

TEST_F(FakeWorkerTest, EveryOpAnswersInItsTypedShape) {
  auto hello = protocol::HelloResponse::FromJson(Ok({{"op", "hello"}}));
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  EXPECT_EQ(hello->ops.size(), protocol::Ops().size() - 2);  // all but quantize, imatrix
  Ready({1.0, true, "hi"});
  auto tok = protocol::TokenizeResponse::FromJson(Ok({{"op", "tokenize"}, {"text", "ab"}}));
  ASSERT_TRUE(tok.ok());
  EXPECT_EQ(tok->tokens, (TokenIds{kBos, 2 + 'a', 2 + 'b'}));
  auto detok =
      protocol::DetokenizeResponse::FromJson(Ok({{"op", "detokenize"}, {"tokens", tok->tokens}}));
  ASSERT_TRUE(detok.ok());
  EXPECT_EQ(detok->text, "ab");
  auto pp = protocol::PpResponse::FromJson(
      Ok({{"op", "pp"}, {"tokens", TokenIds(10, 5)}, {"n_batch", 4}}));
  ASSERT_TRUE(pp.ok()) << pp.error().message;
  EXPECT_EQ(pp->t_end_ns - pp->t_start_ns, 10 * kPpNsPerToken);
  EXPECT_EQ(pp->batch_end_ns.size(), 3u);
  auto tg = protocol::TgResponse::FromJson(
      Ok({{"op", "tg"}, {"prompt", json::array()}, {"first_token", 1}, {"n_gen", 3}}));
  ASSERT_TRUE(tg.ok()) << tg.error().message;
  EXPECT_EQ(tg->token_end_ns.back() - tg->t_start_ns, 3 * kTgNsPerToken);
  auto ttft = protocol::TtftResponse::FromJson(Ok({{"op", "ttft"}, {"text", "abc"}}));
  ASSERT_TRUE(ttft.ok()) << ttft.error().message;
  EXPECT_EQ(ttft->n_prompt_tokens, 4);
  auto chat = protocol::ChatResponse::FromJson(Ok(
      {{"op", "chat"}, {"messages", {{{"role", "user"}, {"content", "q"}}}}, {"max_tokens", 1}}));
  ASSERT_TRUE(chat.ok()) << chat.error().message;
  EXPECT_EQ(chat->text, "h");
  EXPECT_EQ(chat->stop, "max_tokens");
  EXPECT_EQ(chat->prompt, "<|user|>q\n<|assistant|>");
  EXPECT_TRUE(protocol::MemoryResponse::FromJson(Ok({{"op", "memory"}})).ok());
  EXPECT_TRUE(protocol::ResetPeakMemoryResponse::FromJson(Ok({{"op", "reset_peak_memory"}})).ok());
  EXPECT_TRUE(fake_.bad_requests().empty());
  Ok({{"op", "shutdown"}});
  EXPECT_FALSE(ch_->Alive());
}

TEST_F(FakeWorkerTest, ScoreFactsAndFramesAreTheFormulaLogits) {
  Ready({2.0, false, ""});
  const TokenIds t = {5, 9, 7, 3};
  auto s = protocol::ScoreResponse::FromJson(
      Ok({{"op", "score"}, {"tokens", t}, {"from", 1}, {"top_k", 3}}));
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->logprob.size(), 2u);
  const std::vector<float> l = Logits(2.0, 9);  // after tokens[1]
  double sum = 0;
  for (float x : l) sum += std::exp(double(x));
  EXPECT_NEAR(s->logprob[0], std::log(std::exp(double(l[7])) / sum), 1e-9);
  ASSERT_TRUE(s->top_logprobs && s->top_tail_logprob);
  double top = 0;
  for (double lp : (*s->top_logprobs)[0]) top += std::exp(lp);
  EXPECT_NEAR(top + std::exp((*s->top_tail_logprob)[0]), 1.0, 1e-9);

  auto head = protocol::ScoreFramesResponse::FromJson(
      Ok({{"op", "score"}, {"tokens", t}, {"from", 1}, {"logits", true}}));
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->frames, 2);
  worker::LogitsFrame f;
  ASSERT_TRUE(ch_->ReadFrame(&f, size_t(kVocab), milliseconds(10)).ok());
  EXPECT_EQ(f.position, 1);
  EXPECT_EQ(f.logits, l);
  ASSERT_TRUE(ch_->ReadFrame(&f, size_t(kVocab), milliseconds(10)).ok());
  EXPECT_FALSE(ch_->ReadFrame(&f, size_t(kVocab), milliseconds(10)).ok());  // none due
}

TEST_F(FakeWorkerTest, FailsTheNthRequestOfAnOpAsTold) {
  fake_.Fail({"tokenize", 2, false});
  fake_.Fail({"memory", 1, true});
  Ready();
  EXPECT_TRUE(ch_->Call({{"op", "tokenize"}, {"text", "a"}}, milliseconds(1)).ok());
  auto second = ch_->Call({{"op", "tokenize"}, {"text", "a"}}, milliseconds(1));
  ASSERT_FALSE(second.ok());
  EXPECT_FALSE(second.error().broken);
  EXPECT_TRUE(ch_->Alive());
  auto mem = ch_->Call({{"op", "memory"}}, milliseconds(1));
  ASSERT_FALSE(mem.ok());
  EXPECT_TRUE(mem.error().broken);
  EXPECT_FALSE(ch_->Alive());
  EXPECT_EQ(fake_.Ops(), (std::vector<std::string>{"load_model", "init_context", "tokenize",
                                                   "tokenize", "memory"}));
}

TEST_F(FakeWorkerTest, ARequestTheProtocolRejectsIsRecorded) {
  Ready();
  auto r = ch_->Call({{"op", "score"}, {"tokens", {1}}}, milliseconds(1));
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(fake_.bad_requests().size(), 1u);
  EXPECT_NE(fake_.bad_requests()[0].find("at least 2 tokens"), std::string::npos)
      << fake_.bad_requests()[0];
  fake_.Lack("chat");
  EXPECT_FALSE(
      ch_->Call({{"op", "chat"}, {"prompt_tokens", {5}}, {"max_tokens", 1}}, milliseconds(1)).ok());
}

}  // namespace
}  // namespace pipette::testing
