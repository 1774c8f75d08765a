#include "pipette/protocol/speed_ops.h"

#include <utility>

namespace pipette::protocol {

using nlohmann::json;
using nlohmann::ordered_json;

json PpRequest::ToJson() const {
  json j = {{"op", op::kPp}, {"tokens", tokens}};
  if (!prefix.empty()) j["prefix"] = prefix;
  if (n_batch) j["n_batch"] = *n_batch;
  return j;
}

Result<PpRequest> PpRequest::FromJson(const json& j) {
  return ReadRequest<PpRequest>(j, op::kPp, [](FieldReader& f, PpRequest& r) {
    r.prefix = f.Tokens("prefix", {});
    r.tokens = f.Tokens("tokens");
    r.n_batch = f.OptionalInt("n_batch", 1, kInt32Max);
    if (f.ok() && r.tokens.empty()) f.Fail("'tokens' is empty: nothing to process");
  });
}

ordered_json PpResponse::ToJson() const {
  ordered_json out;
  out["n_tokens"] = n_tokens;
  out["t_start_ns"] = t_start_ns;
  out["t_end_ns"] = t_end_ns;
  out["batch_end_ns"] = batch_end_ns;
  out["runtime_perf"] = runtime_perf;
  return out;
}

Result<PpResponse> PpResponse::FromJson(const json& j) {
  return ReadResponse<PpResponse>(j, op::kPp, [](FieldReader& f, PpResponse& r) {
    r.n_tokens = f.Int("n_tokens", 1, kInt64Max);
    ReadTimeSpan(f, &r.t_start_ns, &r.t_end_ns);
    r.batch_end_ns = f.Ints("batch_end_ns");
    r.runtime_perf = f.OptionalObject("runtime_perf");
  });
}

json TgRequest::ToJson() const {
  json j = {{"op", op::kTg}, {"prompt", prompt}, {"first_token", first_token}, {"n_gen", n_gen}};
  if (n_batch) j["n_batch"] = *n_batch;
  return j;
}

Result<TgRequest> TgRequest::FromJson(const json& j) {
  return ReadRequest<TgRequest>(j, op::kTg, [](FieldReader& f, TgRequest& r) {
    r.prompt = f.Tokens("prompt", {});
    r.first_token = static_cast<int32_t>(f.Int("first_token", INT32_MIN, kInt32Max));
    r.n_gen = f.Int("n_gen", 1, kInt32Max);
    r.n_batch = f.OptionalInt("n_batch", 1, kInt32Max);
  });
}

ordered_json TgResponse::ToJson() const {
  ordered_json out;
  out["n_gen"] = n_gen;
  out["t_start_ns"] = t_start_ns;
  out["token_end_ns"] = token_end_ns;
  out["tokens"] = tokens;
  out["runtime_perf"] = runtime_perf;
  return out;
}

Result<TgResponse> TgResponse::FromJson(const json& j) {
  return ReadResponse<TgResponse>(j, op::kTg, [](FieldReader& f, TgResponse& r) {
    r.n_gen = f.Int("n_gen", 1, kInt64Max);
    r.t_start_ns = f.Int("t_start_ns", kInt64Min, kInt64Max);
    r.token_end_ns = f.Ints("token_end_ns");
    r.tokens = f.Tokens("tokens");
    r.runtime_perf = f.OptionalObject("runtime_perf");
    // `tokens` may be empty: an HTTP endpoint's stream carries no token ids.
    if (f.ok() && (static_cast<int64_t>(r.token_end_ns.size()) != r.n_gen ||
                   (!r.tokens.empty() && static_cast<int64_t>(r.tokens.size()) != r.n_gen))) {
      f.Fail("'token_end_ns' and 'tokens' must have one entry per generated token");
    }
  });
}

json TtftRequest::ToJson() const {
  json j = {{"op", op::kTtft},
            {"text", text},
            {"add_special", add_special},
            {"parse_special", parse_special}};
  if (n_batch) j["n_batch"] = *n_batch;
  return j;
}

Result<TtftRequest> TtftRequest::FromJson(const json& j) {
  return ReadRequest<TtftRequest>(j, op::kTtft, [](FieldReader& f, TtftRequest& r) {
    r.text = f.String("text");
    r.n_batch = f.OptionalInt("n_batch", 1, kInt32Max);
    r.add_special = f.Bool("add_special", true);
    r.parse_special = f.Bool("parse_special", false);
  });
}

ordered_json TtftResponse::ToJson() const {
  ordered_json out;
  out["n_prompt_tokens"] = n_prompt_tokens;
  out["t_start_ns"] = t_start_ns;
  out["t_tokenized_ns"] = t_tokenized_ns;
  out["t_first_token_ns"] = t_first_token_ns;
  out["token"] = token;
  out["runtime_perf"] = runtime_perf;
  return out;
}

Result<TtftResponse> TtftResponse::FromJson(const json& j) {
  return ReadResponse<TtftResponse>(j, op::kTtft, [](FieldReader& f, TtftResponse& r) {
    r.n_prompt_tokens = f.Int("n_prompt_tokens", 1, kInt64Max);
    r.t_start_ns = f.Int("t_start_ns", kInt64Min, kInt64Max);
    r.t_tokenized_ns = f.Int("t_tokenized_ns", r.t_start_ns, kInt64Max);
    r.t_first_token_ns = f.Int("t_first_token_ns", r.t_tokenized_ns, kInt64Max);
    r.token = f.Int("token", -1, kInt32Max);  // -1: not returned (an HTTP endpoint)
    r.runtime_perf = f.OptionalObject("runtime_perf");
  });
}

json E2eRequest::ToJson() const {
  json j = {{"op", op::kE2e}, {"prompt", prompt}, {"n_gen", n_gen}};
  if (n_batch) j["n_batch"] = *n_batch;
  return j;
}

Result<E2eRequest> E2eRequest::FromJson(const json& j) {
  return ReadRequest<E2eRequest>(j, op::kE2e, [](FieldReader& f, E2eRequest& r) {
    r.prompt = f.Tokens("prompt");
    r.n_gen = f.Int("n_gen", 1, kInt32Max);
    r.n_batch = f.OptionalInt("n_batch", 1, kInt32Max);
    if (f.ok() && r.prompt.empty()) f.Fail("'prompt' is empty: e2e needs at least one token");
  });
}

ordered_json E2eResponse::ToJson() const {
  ordered_json out;
  out["n_prompt"] = n_prompt;
  out["n_gen"] = n_gen;
  out["t_start_ns"] = t_start_ns;
  out["token_end_ns"] = token_end_ns;
  out["tokens"] = tokens;
  out["runtime_perf"] = runtime_perf;
  return out;
}

Result<E2eResponse> E2eResponse::FromJson(const json& j) {
  return ReadResponse<E2eResponse>(j, op::kE2e, [](FieldReader& f, E2eResponse& r) {
    r.n_prompt = f.Int("n_prompt", 1, kInt64Max);
    r.n_gen = f.Int("n_gen", 1, kInt64Max);
    r.t_start_ns = f.Int("t_start_ns", kInt64Min, kInt64Max);
    r.token_end_ns = f.Ints("token_end_ns");
    r.tokens = f.Tokens("tokens");
    r.runtime_perf = f.OptionalObject("runtime_perf");
    if (f.ok() && (static_cast<int64_t>(r.token_end_ns.size()) != r.n_gen ||
                   static_cast<int64_t>(r.tokens.size()) != r.n_gen)) {
      f.Fail("'token_end_ns' and 'tokens' must have one entry per generated token");
    }
    if (f.ok() && !r.token_end_ns.empty() && r.token_end_ns.front() < r.t_start_ns) {
      f.Fail("'token_end_ns' starts before 't_start_ns'");
    }
  });
}

}  // namespace pipette::protocol
