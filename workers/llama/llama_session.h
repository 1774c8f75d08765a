// Owns the llama.cpp model and context and carries out the protocol's model operations on them
// (docs/protocol.md): load_model, init_context, tokenize, detokenize, pp, tg, ttft, score, chat,
// imatrix.
#pragma once

#include <llama-cpp.h>
#include <llama.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "chat_template.h"

namespace pipette::llama_worker {

class FrameStream;

// What an operation answers: the response fields when it worked, or a message for a person.
struct Reply {
  bool ok = true;
  nlohmann::ordered_json body = nlohmann::ordered_json::object();
  std::string error;

  static Reply Ok(nlohmann::ordered_json fields) { return {true, std::move(fields), {}}; }
  static Reply Fail(std::string message) { return {false, {}, std::move(message)}; }
};

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
  // With `logits: true` the response line and one binary frame per scored position go to
  // `stream` (docs/protocol.md "Frames"); a failure after the line is the caller's to report
  // as an abort frame (`stream->started()`).
  Reply Score(const nlohmann::json& request, FrameStream* stream = nullptr);
  Reply Chat(const nlohmann::json& request);
  // Collects an importance matrix in a temporary context of its own (the session's context is
  // left as it is) and writes it to a file (imatrix_collector.h, imatrix_file.h).
  Reply Imatrix(const nlohmann::json& request);

 private:
  // "" when the model (and, if `need_context`, the context) is there; else the reply message.
  std::string CheckReady(bool need_context) const;
  // "" when every token is in [0, n_vocab); else a message naming the first that is not.
  std::string CheckTokens(const std::vector<llama_token>& tokens, const char* field) const;
  // Resolves a request's optional n_batch against the context's; "" or a message.
  std::string ResolveBatch(int64_t requested, int32_t* n_batch) const;
  // Starts a request on an empty context: clears the KV cache and the perf counters.
  void ClearForRequest();
  // Decodes `tokens` at positions [pos0, pos0 + n) in batches of at most `n_batch`, waiting for
  // each batch to finish; logits only for the last token. Appends each batch's end time to
  // `batch_end_ns` when given. Returns "" or a message.
  std::string DecodeInBatches(const std::vector<llama_token>& tokens, int32_t pos0, int32_t n_batch,
                              std::vector<int64_t>* batch_end_ns);
  // Greedy pick from the logits of the last decoded output (argmax; first on ties).
  // Returns -1 when llama.cpp has no logits.
  llama_token ArgmaxOfLast();
  nlohmann::ordered_json RuntimePerf() const;
  std::vector<llama_token> TokenizeText(const std::string& text, bool add_special,
                                        bool parse_special) const;
  // The text of `tokens` (the caller has checked the ids); false when llama.cpp fails.
  bool DetokenizeTokens(const std::vector<llama_token>& tokens, bool remove_special,
                        bool unparse_special, std::string* text) const;
  // A chat request's prompt: its "messages" rendered by the model's own chat template through
  // llama.cpp's template engine (chat_template.h), with its "template_options", and tokenized
  // as llama-server tokenizes it.
  struct TemplatedChat {
    std::string template_text;
    std::string template_origin;
    nlohmann::json options;
    bool enable_thinking = false;
    std::string prompt;
    std::vector<llama_token> tokens;
  };
  // Fills `out` from `request`; returns "" or a message.
  std::string TemplatedPrompt(const nlohmann::json& request, TemplatedChat* out);
  void FreeContext();

  llama_model_ptr model_;
  std::unique_ptr<ChatTemplate> chat_template_;  // the loaded model's, parsed at the first chat
  llama_context_ptr context_;
  llama_batch batch_{};  // sized for the context's n_batch; allocated with the context
  bool batch_allocated_ = false;
};

}  // namespace pipette::llama_worker
