// Owns the llama.cpp model and context and carries out the protocol's model operations on them
// (docs/protocol.md): load_model, init_context, tokenize, detokenize and imatrix
// (llama_session.cc), pp, tg, e2e and ttft (llama_speed_ops.cc), score and chat
// (llama_quality_ops.cc).
#pragma once

#include <llama-cpp.h>
#include <llama.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chat_template.h"
#include "common/frame_stream.h"
#include "common/reply.h"
#include "pipette/protocol/quality_ops.h"

namespace pipette::llama_worker {

using worker_common::FrameStream;
using worker_common::Reply;

class LlamaSession {
 public:
  LlamaSession() = default;
  ~LlamaSession();
  LlamaSession(const LlamaSession&) = delete;
  LlamaSession& operator=(const LlamaSession&) = delete;

  Reply LoadModel(const nlohmann::json& request);
  Reply InitContext(const nlohmann::json& request);
  Reply Tokenize(const nlohmann::json& request);
  Reply Detokenize(const nlohmann::json& request);
  Reply PromptProcessing(const nlohmann::json& request);
  Reply Generate(const nlohmann::json& request);
  Reply TimeToFirstToken(const nlohmann::json& request);
  // e2e: the prompt decoded, then n_gen tokens chosen greedily, timed as one request.
  Reply EndToEnd(const nlohmann::json& request);
  // With `logits: true` the response line and one binary frame per scored position go to
  // `stream` (docs/protocol.md "Frames"); a failure after the line is the caller's to report
  // as an abort frame (`stream->started()`).
  Reply Score(const nlohmann::json& request, FrameStream* stream = nullptr);
  Reply Chat(const nlohmann::json& request);
  // Collects an importance matrix in a temporary context of its own (the session's context is
  // left as it is) and writes it to a file (imatrix_collector.h, imatrix_file.h).
  Reply Imatrix(const nlohmann::json& request);

 private:
  // Whether the model (and, if `need_context`, the context) is there.
  Status CheckReady(bool need_context) const;
  // Whether every token is in [0, n_vocab); the error names the first that is not.
  Status CheckTokens(const std::vector<llama_token>& tokens, const std::string& field) const;
  // A request's optional n_batch, resolved against the context's.
  Result<int32_t> ResolveBatch(const std::optional<int64_t>& requested) const;
  // Starts a request on an empty context: clears the KV cache and the perf counters.
  void ClearForRequest();
  // Decodes `tokens` at positions [pos0, pos0 + n) in batches of at most `n_batch`, waiting for
  // each batch to finish; logits only for the last token. Appends each batch's end time to
  // `batch_end_ns` when given.
  Status DecodeInBatches(const std::vector<llama_token>& tokens, int32_t pos0, int32_t n_batch,
                         std::vector<int64_t>* batch_end_ns);
  // Greedy pick from the logits of the last decoded output (argmax; first on ties).
  // Returns -1 when llama.cpp has no logits.
  llama_token ArgmaxOfLast();
  // One generation step: decodes *token at `pos` alone, and puts the greedy pick of its logits in
  // *token (`step` names it in errors).
  Status DecodeOneAndChoose(llama_token* token, int32_t pos, int64_t step);
  nlohmann::ordered_json RuntimePerf() const;
  std::vector<llama_token> TokenizeText(const std::string& text, bool add_special,
                                        bool parse_special) const;
  // The text of `tokens` (the caller has checked the ids).
  Result<std::string> DetokenizeTokens(const std::vector<llama_token>& tokens, bool remove_special,
                                       bool unparse_special) const;
  // A chat request's prompt: its messages rendered by the model's own chat template through
  // llama.cpp's template engine (chat_template.h), with its template options, and tokenized
  // as llama-server tokenizes it.
  struct TemplatedChat {
    std::string template_text;
    std::string template_origin;
    nlohmann::json options;
    bool enable_thinking = false;
    std::string prompt;
    std::vector<llama_token> tokens;
  };
  Result<TemplatedChat> TemplatedPrompt(const protocol::ChatRequest& request);
  void FreeContext();

  llama_model_ptr model_;
  std::unique_ptr<ChatTemplate> chat_template_;  // the loaded model's, parsed at the first chat
  llama_context_ptr context_;
  llama_batch batch_{};  // sized for the context's n_batch; allocated with the context
  bool batch_allocated_ = false;
};

}  // namespace pipette::llama_worker
