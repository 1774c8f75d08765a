// Every op's typed request and response: written and read back unchanged, and refused with an
// error naming the op and the field when a field is missing or mistyped.
#include <gtest/gtest.h>

#include <set>

#include "pipette/protocol/check.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/ops.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/protocol/quant_ops.h"
#include "pipette/protocol/samples_for_tests.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/speed_ops.h"

namespace pipette::protocol {
namespace {

using nlohmann::json;

// The error of parsing `j` as T ("" when it parses).
template <class T>
std::string ErrorOf(const json& j) {
  auto r = T::FromJson(j);
  return r ? "" : r.error().message;
}

TEST(Messages, EveryOpHasASampleThatReadsBackAsWritten) {
  std::set<std::string> seen;
  for (const testing::Sample& s : testing::AllSamples()) {
    seen.insert(s.op);
    EXPECT_EQ(s.request["op"], s.op);
    const Status request = CheckRequest(s.request);
    EXPECT_TRUE(request.ok()) << s.op << ": " << request.error().message;
    for (const nlohmann::ordered_json& response : s.responses) {
      const bool frames = response.contains("frames");
      const Status checked = CheckResponse(s.op, json(response), frames);
      EXPECT_TRUE(checked.ok()) << s.op << ": " << checked.error().message;
    }
  }
  for (std::string_view name : Ops()) EXPECT_TRUE(seen.count(std::string(name))) << name;
}

TEST(Messages, RequestsAndResponsesRoundTrip) {
  const json pp = PpRequest{{1, 2, 3}, 2}.ToJson();
  EXPECT_EQ(PpRequest::FromJson(pp)->ToJson(), pp);
  EXPECT_FALSE(pp.contains("prefix"));  // depth 0: nothing a worker without it must read
  const json deep = PpRequest{{1, 2, 3}, 2, {7, 8}}.ToJson();
  EXPECT_EQ(deep["prefix"], json({7, 8}));
  EXPECT_EQ(PpRequest::FromJson(deep)->prefix, (TokenIds{7, 8}));
  const TgResponse tg{2, 10, {11, 12}, {5, 6}, {{"n_eval", 2}}};
  EXPECT_EQ(TgResponse::FromJson(json(tg.ToJson()))->ToJson(), tg.ToJson());
  // Swap is optional: a worker on a kernel without VmSwap (or an older worker) leaves it out.
  const MemoryResponse bare{10, 20, std::nullopt, std::nullopt};
  EXPECT_EQ(json(bare.ToJson()), json({{"rss", 10}, {"hwm", 20}}));
  EXPECT_EQ(MemoryResponse::FromJson(json(bare.ToJson()))->ToJson(), bare.ToJson());
  const MemoryResponse swapped{10, 20, 5, 30};
  EXPECT_EQ(json(swapped.ToJson()),
            json({{"rss", 10}, {"hwm", 20}, {"swap", 5}, {"footprint_peak", 30}}));
  const auto read = MemoryResponse::FromJson(json(swapped.ToJson()));
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->swap, 5);
  EXPECT_EQ(read->footprint_peak, 30);
  for (const testing::Sample& s : testing::AllSamples()) {
    if (s.op == op::kLoadModel) {
      EXPECT_EQ(LoadModelRequest::FromJson(s.request)->ToJson(), s.request);
      const auto back = LoadModelResponse::FromJson(json(s.responses[0]));
      ASSERT_TRUE(back.ok()) << back.error().message;
      EXPECT_EQ(json(back->ToJson()), json(s.responses[0]));
      EXPECT_EQ(back->applied, json({{"load_mode", "mmap"}}));  // the runtime's own fields kept
    }
    if (s.op == op::kChat && s.request.contains("messages")) {
      const auto back = ChatRequest::FromJson(s.request);
      ASSERT_TRUE(back.ok()) << back.error().message;
      EXPECT_EQ(back->ToJson(), s.request);
      EXPECT_EQ(json(ChatResponse::FromJson(json(s.responses[0]))->ToJson()), json(s.responses[0]));
    }
    if (s.op == op::kQuantize) {
      EXPECT_EQ(QuantizeRequest::FromJson(s.request)->ToJson(), s.request);
    }
    if (s.op == op::kImatrix) {
      EXPECT_EQ(ImatrixRequest::FromJson(s.request)->ToJson(), s.request);
    }
    if (s.op == op::kScore && !s.request.contains("logits")) {
      EXPECT_EQ(ScoreRequest::FromJson(s.request)->ToJson(), s.request);
      EXPECT_EQ(json(ScoreResponse::FromJson(json(s.responses[0]))->ToJson()),
                json(s.responses[0]));
    }
  }
}

TEST(Messages, AMissingOrMistypedFieldNamesTheOpAndTheField) {
  EXPECT_EQ(ErrorOf<PpRequest>({{"op", "pp"}}), "pp request: missing required field 'tokens'");
  EXPECT_EQ(ErrorOf<PpRequest>({{"op", "pp"}, {"tokens", {1}}, {"n_batch", "x"}}),
            "pp request: field 'n_batch' must be an integer, got a string");
  EXPECT_EQ(ErrorOf<TgRequest>({{"op", "tg"}, {"first_token", 1}}),
            "tg request: missing required field 'n_gen'");
  EXPECT_EQ(ErrorOf<TokenizeRequest>({{"op", "tokenize"}, {"text", 3}}),
            "tokenize request: field 'text' must be a string, got an integer");
  EXPECT_EQ(ErrorOf<LoadModelRequest>({{"op", "load_model"}}),
            "load_model request: missing required field 'path'");
  EXPECT_EQ(ErrorOf<InitContextRequest>({{"op", "init_context"}, {"n_ctx", -1}}),
            "init_context request: field 'n_ctx' must be between 0 and 2147483647, got -1");
  EXPECT_EQ(ErrorOf<QuantizeRequest>({{"op", "quantize"}, {"input", "a"}, {"output", "b"}}),
            "quantize request: missing required field 'type'");
  EXPECT_EQ(ErrorOf<ImatrixRequest>({{"op", "imatrix"}, {"output", "o"}, {"chunks", {{1}, "x"}}}),
            "imatrix request: field 'chunks[1]' must be an array of token ids, got a string");
  EXPECT_EQ(
      ErrorOf<ChatRequest>({{"op", "chat"}, {"max_tokens", 1}, {"messages", {{{"role", "user"}}}}}),
      "chat request: missing required field 'messages[0].content'");
  EXPECT_EQ(ErrorOf<MemoryResponse>({{"rss", 1}}), "memory response: missing required field 'hwm'");
  EXPECT_EQ(ErrorOf<HelloResponse>({{"protocol", "1"}}),
            "hello response: field 'protocol' must be an integer, got a string");
}

TEST(Messages, AChatStopsAtEndOfGenerationAtMaxTokensOrAsAFailedRequest) {
  json chat = {
      {"prompt", "p"},    {"n_prompt_tokens", 1}, {"tokens", json::array()}, {"text", ""},
      {"stop", "failed"}, {"t_start_ns", 1},      {"t_first_token_ns", 1},   {"t_end_ns", 1}};
  EXPECT_EQ(ErrorOf<ChatResponse>(chat), "");  // an endpoint's stalled or cut request
  chat["stop"] = "eos";
  EXPECT_EQ(ErrorOf<ChatResponse>(chat),
            "chat response: field 'stop' must be \"eog\", \"max_tokens\", \"stop\" or \"failed\", "
            "got 'eos'");
}

TEST(Messages, ScoreRequestsAreCheckedBeyondTheirTypes) {
  const json base = {{"op", "score"}, {"tokens", {1, 2, 3}}};
  EXPECT_EQ(ErrorOf<ScoreRequest>(base), "");
  json one = base;
  one["tokens"] = {1};
  EXPECT_EQ(ErrorOf<ScoreRequest>(one),
            "score request: 'tokens' needs at least 2 tokens: a context and a next token");
  json late = base;
  late["from"] = 2;
  EXPECT_EQ(ErrorOf<ScoreRequest>(late),
            "score request: 'from' 2 leaves no position to score in 3 tokens");
  json both = base;
  both["logits"] = true;
  both["top_k"] = 5;
  EXPECT_EQ(ErrorOf<ScoreRequest>(both),
            "score request: 'logits' sends every logit: it does not combine with 'top_k' or "
            "'ids'");
  json ids = base;
  ids["ids"] = {{1}};
  EXPECT_EQ(ErrorOf<ScoreRequest>(ids),
            "score request: 'ids' must be an array with one list of token ids per scored "
            "position (2)");
  ids["ids"] = {{1}, {"x"}};
  EXPECT_EQ(ErrorOf<ScoreRequest>(ids),
            "score request: field 'ids' must hold only integer token ids, not a string");
}

TEST(Messages, ChatTakesExactlyOnePromptForm) {
  EXPECT_EQ(ErrorOf<ChatRequest>({{"op", "chat"}, {"max_tokens", 1}}),
            "chat request: send exactly one of 'messages' (templated chat), 'prompt' (a rendered "
            "prompt) and 'prompt_tokens'");
  EXPECT_EQ(ErrorOf<ChatRequest>(
                {{"op", "chat"}, {"max_tokens", 1}, {"prompt", "x"}, {"prompt_tokens", {1}}}),
            "chat request: send exactly one of 'messages' (templated chat), 'prompt' (a rendered "
            "prompt) and 'prompt_tokens'");
  EXPECT_EQ(ErrorOf<ChatRequest>({{"op", "chat"}, {"max_tokens", 1}, {"prompt", ""}}),
            "chat request: 'prompt' is empty: nothing to continue");
  EXPECT_EQ(
      ErrorOf<ChatRequest>(
          {{"op", "chat"}, {"max_tokens", 1}, {"prompt", "x"}, {"template_options", {{"a", 1}}}}),
      "chat request: 'template_options' go with 'messages'; 'prompt' is not templated");
  EXPECT_EQ(ErrorOf<ChatRequest>({{"op", "chat"},
                                  {"max_tokens", 1},
                                  {"prompt_tokens", {1}},
                                  {"template_options", {{"a", 1}}}}),
            "chat request: 'template_options' go with 'messages'; 'prompt_tokens' is not "
            "templated");
  EXPECT_EQ(ErrorOf<ChatRequest>({{"op", "chat"},
                                  {"max_tokens", 1},
                                  {"messages", {{{"role", "user"}, {"content", "hi"}}}},
                                  {"template_options", {{"a", {1}}}}}),
            "chat request: template_options.a must be a JSON scalar (string, number, boolean, "
            "null)");
}

TEST(Messages, RenderChatNeedsTheTemplateItsTokensAndMessages) {
  const json base = {{"op", "render_chat"},
                     {"template", ""},
                     {"bos_text", "<s>"},
                     {"eos_text", "</s>"},
                     {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  auto ok = RenderChatRequest::FromJson(base);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_FALSE(ok->add_bos);  // absent: false
  json no_bos = base;
  no_bos.erase("bos_text");
  EXPECT_EQ(ErrorOf<RenderChatRequest>(no_bos),
            "render_chat request: missing required field 'bos_text'");
  json empty = base;
  empty["messages"] = json::array();
  EXPECT_EQ(ErrorOf<RenderChatRequest>(empty),
            "render_chat request: field 'messages' must be a non-empty array of "
            "{\"role\":..,\"content\":..} objects");
  json nested = base;
  nested["template_options"] = {{"a", {{"b", 1}}}};
  EXPECT_EQ(ErrorOf<RenderChatRequest>(nested),
            "render_chat request: template_options.a must be a JSON scalar (string, number, "
            "boolean, null)");
}

TEST(Messages, ResponsesMustBeAlignedWithWhatWasAsked) {
  json tg = json(TgResponse{2, 10, {11, 12}, {5, 6}, {}}.ToJson());
  tg["tokens"] = {5};
  EXPECT_EQ(ErrorOf<TgResponse>(tg),
            "tg response: 'token_end_ns' and 'tokens' must have one entry per generated token");
  const json frames = {
      {"n_tokens", 4}, {"from", 1}, {"frames", 3}, {"n_vocab", 8}, {"t_start_ns", 0}};
  EXPECT_EQ(ErrorOf<ScoreFramesResponse>(frames),
            "score response: 'frames' must be the number of scored positions (2)");
}

TEST(Messages, UnknownFieldsOfAResponseAreIgnoredAndUnknownOpsRefused) {
  EXPECT_EQ(ErrorOf<MemoryResponse>({{"id", 3}, {"ok", true}, {"rss", 1}, {"hwm", 2}, {"x", 0}}),
            "");
  const Status unknown = CheckRequest({{"op", "frobnicate"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "unknown op 'frobnicate'");
}

// An `op` of another type is no op, never an uncaught type_error (fuzz/protocol_lines_fuzz.cc).
TEST(Messages, AnOpOfAnotherTypeIsRefused) {
  for (const nlohmann::json& op : {nlohmann::json(5), nlohmann::json::array(), nlohmann::json()}) {
    const Status s = CheckRequest({{"op", op}});
    EXPECT_FALSE(s.ok()) << op.dump();
  }
}

}  // namespace
}  // namespace pipette::protocol
