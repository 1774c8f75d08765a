// For tests only: one request and one response of every op, each with every field the typed
// structs know set, so that round trips and the documentation check see them all.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/protocol/quant_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/speed_ops.h"

namespace pipette::protocol::testing {

struct Sample {
  std::string op;
  nlohmann::json request;
  std::vector<nlohmann::ordered_json> responses;  // score: the facts, then the frames' line
};

inline std::vector<Sample> AllSamples() {
  std::vector<Sample> s;
  HelloResponse hello;
  hello.runtime = "llama.cpp";
  hello.runtime_version = "0.3.36";
  hello.runtime_build = {{"system_info", "CPU"}};
  hello.pid = 42;
  hello.ops = {"hello", "pp"};
  s.push_back({op::kHello, HelloRequest{}.ToJson(), {hello.ToJson()}});

  LoadModelRequest load{"/m.gguf", {{"use_mmap", true}}};
  LoadModelResponse loaded;
  loaded.t_start_ns = 1;
  loaded.t_end_ns = 2;
  loaded.rss_before = 10;
  loaded.rss_after = 20;
  loaded.model.desc = "llama 135M Q4_1";
  loaded.model.n_params = 134515008;
  loaded.model.size_bytes = 85;
  loaded.model.n_vocab = 49152;
  loaded.model.n_ctx_train = 8192;
  loaded.model.n_layer = 30;
  loaded.model.n_embd = 576;
  loaded.model.bos = 1;
  loaded.model.add_bos = false;
  loaded.model.eos = 2;
  loaded.model.meta = {{"general.architecture", "llama"}};
  loaded.applied = {{"load_mode", "mmap"}};
  s.push_back({op::kLoadModel, load.ToJson(), {loaded.ToJson()}});

  InitContextRequest ctx{512, {{"n_batch", 512}}};
  InitContextResponse ctx_out{1, 2, 512, 512, {{"n_ubatch", 512}}};
  s.push_back({op::kInitContext, ctx.ToJson(), {ctx_out.ToJson()}});

  s.push_back({op::kResetPeakMemory,
               ResetPeakMemoryRequest{}.ToJson(),
               {ResetPeakMemoryResponse{true, 5, 6}.ToJson()}});
  s.push_back({op::kMemory, MemoryRequest{}.ToJson(), {MemoryResponse{5, 6, 0, 6}.ToJson()}});
  s.push_back({op::kTokenize,
               TokenizeRequest{"hi", true, true}.ToJson(),
               {TokenizeResponse{{1, 2}}.ToJson()}});
  s.push_back({op::kDetokenize,
               DetokenizeRequest{{1, 2}, true, true}.ToJson(),
               {DetokenizeResponse{"hi"}.ToJson()}});
  s.push_back({op::kPp,
               PpRequest{{1, 2, 3}, 2}.ToJson(),
               {PpResponse{3, 10, 20, {15, 20}, {{"n_p_eval", 3}}}.ToJson()}});
  s.push_back({op::kTg,
               TgRequest{{1}, 2, 2, 8}.ToJson(),
               {TgResponse{2, 10, {11, 12}, {5, 6}, {{"n_eval", 2}}}.ToJson()}});
  s.push_back({op::kTtft,
               TtftRequest{"hello", 8, true, false}.ToJson(),
               {TtftResponse{2, 10, 11, 12, 7, {{"n_eval", 1}}}.ToJson()}});
  s.push_back({op::kE2e,
               E2eRequest{{1, 2, 3}, 2, 8}.ToJson(),
               {E2eResponse{3, 2, 10, {15, 17}, {5, 6}, {{"n_eval", 1}}}.ToJson()}});

  ScoreRequest score{{1, 2, 3}, 1, 8, 2, std::vector<TokenIds>{{4}}, false};
  ScoreResponse facts;
  facts.n_tokens = 3;
  facts.from = 1;
  facts.t_start_ns = 1;
  facts.t_end_ns = 2;
  facts.logprob = {-0.5};
  facts.argmax = {3};
  facts.logsumexp = {1.5};
  facts.top_ids = std::vector<std::vector<int64_t>>{{3, 4}};
  facts.top_logprobs = std::vector<std::vector<double>>{{-0.5, -1.5}};
  facts.top_tail_logprob = std::vector<double>{-2.0};
  facts.ids_logprob = std::vector<std::vector<double>>{{-1.5}};
  facts.ids_tail_logprob = std::vector<double>{-0.25};
  ScoreRequest score_frames{{1, 2, 3}, 1, 8, 0, std::nullopt, true};
  s.push_back({op::kScore, score.ToJson(), {facts.ToJson()}});
  s.push_back({op::kScore, score_frames.ToJson(), {ScoreFramesResponse{3, 1, 1, 4, 9}.ToJson()}});

  ChatRequest chat;
  chat.messages = {{"user", "hi"}};
  chat.template_options = {{"enable_thinking", false}};
  chat.max_tokens = 4;
  chat.n_batch = 8;
  ChatRequest chat_tokens;
  chat_tokens.prompt_tokens = TokenIds{1, 2};
  chat_tokens.max_tokens = 4;
  ChatResponse chatted;
  chatted.template_text = "{{ x }}";
  chatted.template_origin = "tokenizer.chat_template";
  chatted.template_options = nlohmann::json{{"enable_thinking", false}};
  chatted.enable_thinking = false;
  chatted.prompt = "<|im_start|>user\nhi";
  chatted.n_prompt_tokens = 5;
  chatted.tokens = {7, 8};
  chatted.text = "ok";
  chatted.stop = "eog";
  chatted.t_start_ns = 1;
  chatted.t_first_token_ns = 2;
  chatted.t_end_ns = 3;
  s.push_back({op::kChat, chat.ToJson(), {chatted.ToJson()}});
  s.push_back({op::kChat, chat_tokens.ToJson(), {}});
  ChatRequest chat_prompt;
  chat_prompt.prompt = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n";
  chat_prompt.max_tokens = 4;
  s.push_back({op::kChat, chat_prompt.ToJson(), {}});

  RenderChatRequest render;
  render.template_text = "{% for m in messages %}{{ m.content }}{% endfor %}";
  render.template_tool_use = "{{ tools }}";
  render.bos_text = "<s>";
  render.eos_text = "</s>";
  render.add_bos = true;
  render.messages = {{"system", "be brief"}, {"user", "hi"}};
  render.template_options = {{"enable_thinking", false}};
  RenderChatResponse rendered;
  rendered.template_text = render.template_text;
  rendered.template_origin = "tokenizer.chat_template";
  rendered.template_options = render.template_options;
  rendered.prompt = "be briefhi";
  s.push_back({op::kRenderChat, render.ToJson(), {rendered.ToJson()}});

  QuantizeRequest quantize;
  quantize.input = "/in.gguf";
  quantize.output = "/out.gguf";
  quantize.type = "Q4_K_M";
  quantize.n_threads = 2;
  quantize.overrides = {{"blk\\.3\\..*", "q4_0"}};
  quantize.imatrix = "/imatrix.json";
  QuantizeResponse quantized{1, 2, 85, "Q4_K_M", 2, 1, 7, 210};
  s.push_back({op::kQuantize, quantize.ToJson(), {quantized.ToJson()}});

  ImatrixRequest imatrix{{{1, 2}, {3}}, "/out.json", 2, 256};
  s.push_back({op::kImatrix, imatrix.ToJson(), {ImatrixResponse{1, 2, 210, 2, 3}.ToJson()}});
  s.push_back({op::kShutdown, ShutdownRequest{}.ToJson(), {ShutdownResponse{}.ToJson()}});
  return s;
}

}  // namespace pipette::protocol::testing
