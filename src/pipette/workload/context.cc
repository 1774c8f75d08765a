#include "pipette/workload/context.h"

#include <fmt/format.h>

#include "pipette/protocol/model_ops.h"
#include "pipette/util/sha256.h"
#include "pipette/workload/token_agreement.h"

namespace pipette::workload {

using nlohmann::json;

json RawFacts(json response) {
  response.erase("id");
  response.erase("ok");
  return response;
}

namespace {

Result<std::vector<int64_t>, RunError> TokenizeOn(Context& ctx,
                                                  const protocol::TokenizeRequest& req,
                                                  worker::WorkerChannel* to) {
  auto resp = ctx.Call(req.ToJson(), to);
  if (!resp) return resp.error();
  auto typed = protocol::TokenizeResponse::FromJson(*resp);
  if (!typed) return Broken(typed.error().message);
  return std::vector<int64_t>(typed->tokens.begin(), typed->tokens.end());
}

// The first characters of `text`, for a message.
std::string Excerpt(const std::string& text) {
  constexpr size_t kMax = 40;
  std::string out = text.size() > kMax ? text.substr(0, kMax) + "..." : text;
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out;
}

}  // namespace

Result<std::vector<int64_t>, RunError> Tokenize(Context& ctx, const std::string& text,
                                                bool add_special, worker::WorkerChannel* to,
                                                bool parse_special) {
  const protocol::TokenizeRequest req{text, add_special, parse_special};
  auto tokens = TokenizeOn(ctx, req, to);
  if (!tokens || to) return tokens;
  auto reference = ctx.TokenizerReference();
  if (!reference) return reference.error();
  if (!*reference) return tokens;
  auto theirs = TokenizeOn(ctx, req, *reference);
  if (!theirs) {
    return Failed("the tokenizer of the model's source (" + ctx.Cell().model.tokenizer_source +
                  ") failed: " + theirs.error().message);
  }
  if (auto differs = FirstTokenDifference(*tokens, *theirs)) {
    return Failed(fmt::format(
        "the model's tokenizer disagrees with that of the file it was converted from ({}) on the "
        "text \"{}\" ({} bytes), {}: the conversion changed the tokenizer",
        ctx.Cell().model.tokenizer_source, Excerpt(text), text.size(), *differs));
  }
  // What was checked, so a report (and a test) can tell the check ran.
  if (auto st = ctx.Keep("tokenizer_check", 0, false,
                         {{"source", ctx.Cell().model.tokenizer_source},
                          {"text_sha256", Sha256Hex(text)},
                          {"n_tokens", tokens->size()},
                          {"add_special", add_special},
                          {"parse_special", parse_special},
                          {"agreed", true}});
      !st) {
    return st.error();
  }
  return tokens;
}

}  // namespace pipette::workload
