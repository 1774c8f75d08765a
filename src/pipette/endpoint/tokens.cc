#include "pipette/endpoint/tokens.h"

#include <fmt/format.h>

#include <chrono>
#include <climits>

#include "pipette/device/loaded_worker.h"
#include "pipette/protocol/model_ops.h"

namespace pipette::endpoint {

using nlohmann::json;
using worker::CallError;
using worker::FailedCall;

bool EndpointTokens::Available() const {
  return link_.Flavored() || (!program_.empty() && device_ != nullptr);
}

void EndpointTokens::SetModel(const std::string& path) {
  if (path != model_path_) Stop();
  model_path_ = path;
}

void EndpointTokens::Stop() {
  if (worker_) worker_->Shutdown(std::chrono::milliseconds(2000));
  worker_.reset();
}

Result<worker::WorkerChannel*, CallError> EndpointTokens::Worker(const std::string& op) {
  if (worker_ && worker_->Alive()) return worker_.get();
  Stop();
  auto failed = [&](const std::string& why) {
    Stop();
    return FailedCall(op, fmt::format("the model's tokenizer ({}, for a server without a "
                                      "tokenizer endpoint) failed: {}",
                                      program_, why));
  };
  if (!Available()) return failed("no runtime that loads the model's GGUF is registered");
  if (model_path_.empty()) return failed("no model loaded yet");
  auto ch = device::StartLoadedWorker(*device_, program_, model_path_, link_.Timeout());
  if (!ch) return failed(ch.error().message);
  worker_ = std::move(*ch);
  return worker_.get();
}

Result<json, CallError> EndpointTokens::WorkerCall(const std::string& op, const json& request) {
  auto tok = Worker(op);
  if (!tok) return tok.error();
  auto r = (*tok)->Call(request, link_.Timeout());
  if (!r) return FailedCall(op, "the model's tokenizer failed: " + r.error().message);
  return *r;
}

Result<std::vector<int64_t>, CallError> EndpointTokens::TokensOf(const std::string& op,
                                                                 const std::string& text,
                                                                 bool add_special,
                                                                 bool parse_special) {
  std::vector<int64_t> out;
  if (link_.Flavored()) {
    auto r = link_.Exchange(
        op, "POST", "/tokenize",
        {{"content", text}, {"add_special", add_special}, {"parse_special", parse_special}}, true);
    if (!r) return r.error();
    const auto tokens = r->find("tokens");
    if (tokens == r->end() || !tokens->is_array()) {
      return FailedCall(op, "the server's reply to POST /tokenize has no 'tokens' array");
    }
    for (const json& t : *tokens) {
      if (!t.is_number_integer() || (t.is_number_unsigned() && t.get<uint64_t>() > INT32_MAX) ||
          t.get<int64_t>() < 0 || t.get<int64_t>() > INT32_MAX) {
        return FailedCall(op,
                          "the server's reply to POST /tokenize: a token is not a token id "
                          "(a whole number from 0 to 2^31-1)");
      }
      out.push_back(t.get<int64_t>());
    }
    return out;
  }
  protocol::TokenizeRequest req;
  req.text = text;
  req.add_special = add_special;
  req.parse_special = parse_special;
  auto r = WorkerCall(op, req.ToJson());
  if (!r) return r.error();
  auto typed = protocol::TokenizeResponse::FromJson(*r);
  if (!typed) return FailedCall(op, typed.error().message);
  out.assign(typed->tokens.begin(), typed->tokens.end());
  return out;
}

Result<std::string, CallError> EndpointTokens::TextOf(const std::string& op,
                                                      const std::vector<int64_t>& tokens) {
  if (link_.Flavored()) {
    auto r = link_.Exchange(op, "POST", "/detokenize", {{"tokens", tokens}}, true);
    if (!r) return r.error();
    auto content = StringField(*r, "content", "the server's reply to POST /detokenize");
    if (!content) return FailedCall(op, content.error().message);
    return content->value_or("");
  }
  protocol::DetokenizeRequest req;
  req.tokens.assign(tokens.begin(), tokens.end());
  auto r = WorkerCall(op, req.ToJson());
  if (!r) return r.error();
  auto typed = protocol::DetokenizeResponse::FromJson(*r);
  if (!typed) return FailedCall(op, typed.error().message);
  return typed->text;
}

Result<std::optional<std::vector<int64_t>>, CallError> EndpointTokens::ModelTokens(
    const std::string& op, const std::string& text) {
  if (!Available()) return std::optional<std::vector<int64_t>>();
  auto t = TokensOf(op, text, false, false);
  if (!t) return t.error();
  return std::optional<std::vector<int64_t>>(std::move(*t));
}

Result<void, CallError> EndpointTokens::CountWithoutUsage(const std::string& op, StreamRecord* r) {
  if (r->usage_completion_tokens) return {};
  int64_t n = 0;
  for (const std::string* text : {&r->reasoning, &r->text}) {
    if (text->empty()) continue;
    auto t = ModelTokens(op, *text);
    if (!t) return t.error();
    if (!*t) return {};
    n += static_cast<int64_t>((*t)->size());
  }
  r->tokenizer_completion_tokens = n;
  return {};
}

}  // namespace pipette::endpoint
