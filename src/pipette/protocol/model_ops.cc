#include "pipette/protocol/model_ops.h"

#include <utility>

namespace pipette::protocol {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

ordered_json OrNull(const std::optional<int64_t>& v) { return v ? ordered_json(*v) : nullptr; }

void PutOptional(ordered_json& out, const char* name, const std::optional<int64_t>& v) {
  if (v) out[name] = *v;
}

// Copies the fields of `rest` after those already in `out`.
void Append(ordered_json& out, const json& rest) {
  for (const auto& [key, value] : rest.items()) out[key] = value;
}

}  // namespace

json LoadModelRequest::ToJson() const {
  json j = options;
  j["op"] = op::kLoadModel;
  j["path"] = path;
  return j;
}

Result<LoadModelRequest> LoadModelRequest::FromJson(const json& j) {
  return ReadRequest<LoadModelRequest>(j, op::kLoadModel,
                                       [&j](FieldReader& f, LoadModelRequest& r) {
                                         r.path = f.String("path");
                                         r.options = OtherFields(j, {"path"});
                                       });
}

ordered_json ModelInfo::ToJson() const {
  ordered_json out;
  out["desc"] = desc;
  PutOptional(out, "n_params", n_params);
  PutOptional(out, "size_bytes", size_bytes);
  PutOptional(out, "n_vocab", n_vocab);
  PutOptional(out, "n_ctx_train", n_ctx_train);
  PutOptional(out, "n_layer", n_layer);
  PutOptional(out, "n_embd", n_embd);
  out["bos"] = bos;
  out["add_bos"] = add_bos;
  out["eos"] = eos;
  out["meta"] = meta;
  return out;
}

ordered_json LoadModelResponse::ToJson() const {
  ordered_json out;
  out["t_start_ns"] = t_start_ns;
  out["t_end_ns"] = t_end_ns;
  out["rss_before"] = OrNull(rss_before);
  out["rss_after"] = OrNull(rss_after);
  out["model"] = model.ToJson();
  Append(out, applied);
  return out;
}

Result<LoadModelResponse> LoadModelResponse::FromJson(const json& j) {
  return ReadResponse<LoadModelResponse>(
      j, op::kLoadModel, [&j](FieldReader& f, LoadModelResponse& r) {
        ReadTimeSpan(f, &r.t_start_ns, &r.t_end_ns);
        r.rss_before = f.OptionalInt("rss_before", 0, kInt64Max);
        r.rss_after = f.OptionalInt("rss_after", 0, kInt64Max);
        const json model = f.Object("model");
        FieldReader m = f.Nested(model, "model");
        r.model.desc = m.String("desc", "");
        r.model.n_params = m.OptionalInt("n_params", 0, kInt64Max);
        r.model.size_bytes = m.OptionalInt("size_bytes", 0, kInt64Max);
        r.model.n_vocab = m.OptionalInt("n_vocab", 1, kInt32Max);
        r.model.n_ctx_train = m.OptionalInt("n_ctx_train", 0, kInt64Max);
        r.model.n_layer = m.OptionalInt("n_layer", 0, kInt64Max);
        r.model.n_embd = m.OptionalInt("n_embd", 0, kInt64Max);
        r.model.bos = m.Int("bos", -1, kInt32Max, -1);
        r.model.add_bos = m.Bool("add_bos", false);
        r.model.eos = m.Int("eos", -1, kInt32Max, -1);
        r.model.meta = m.OptionalObject("meta");
        f.Take(m);
        r.applied = OtherFields(j, {"t_start_ns", "t_end_ns", "rss_before", "rss_after", "model"});
      });
}

json InitContextRequest::ToJson() const {
  json j = options;
  j["op"] = op::kInitContext;
  j["n_ctx"] = n_ctx;
  return j;
}

Result<InitContextRequest> InitContextRequest::FromJson(const json& j) {
  return ReadRequest<InitContextRequest>(j, op::kInitContext,
                                         [&j](FieldReader& f, InitContextRequest& r) {
                                           r.n_ctx = f.Int("n_ctx", 0, kInt32Max);
                                           r.options = OtherFields(j, {"n_ctx"});
                                         });
}

ordered_json InitContextResponse::ToJson() const {
  ordered_json out;
  out["t_start_ns"] = t_start_ns;
  out["t_end_ns"] = t_end_ns;
  out["n_ctx"] = n_ctx;
  PutOptional(out, "n_batch", n_batch);
  Append(out, applied);
  return out;
}

Result<InitContextResponse> InitContextResponse::FromJson(const json& j) {
  return ReadResponse<InitContextResponse>(
      j, op::kInitContext, [&j](FieldReader& f, InitContextResponse& r) {
        ReadTimeSpan(f, &r.t_start_ns, &r.t_end_ns);
        r.n_ctx = f.Int("n_ctx", 0, kInt32Max);
        r.n_batch = f.OptionalInt("n_batch", 1, kInt32Max);
        r.applied = OtherFields(j, {"t_start_ns", "t_end_ns", "n_ctx", "n_batch"});
      });
}

json TokenizeRequest::ToJson() const {
  return {{"op", op::kTokenize},
          {"text", text},
          {"add_special", add_special},
          {"parse_special", parse_special}};
}

Result<TokenizeRequest> TokenizeRequest::FromJson(const json& j) {
  return ReadRequest<TokenizeRequest>(j, op::kTokenize, [](FieldReader& f, TokenizeRequest& r) {
    r.text = f.String("text");
    r.add_special = f.Bool("add_special", true);
    r.parse_special = f.Bool("parse_special", false);
  });
}

ordered_json TokenizeResponse::ToJson() const {
  ordered_json out;
  out["tokens"] = tokens;
  return out;
}

Result<TokenizeResponse> TokenizeResponse::FromJson(const json& j) {
  return ReadResponse<TokenizeResponse>(
      j, op::kTokenize, [](FieldReader& f, TokenizeResponse& r) { r.tokens = f.Tokens("tokens"); });
}

json DetokenizeRequest::ToJson() const {
  return {{"op", op::kDetokenize},
          {"tokens", tokens},
          {"remove_special", remove_special},
          {"unparse_special", unparse_special}};
}

Result<DetokenizeRequest> DetokenizeRequest::FromJson(const json& j) {
  return ReadRequest<DetokenizeRequest>(j, op::kDetokenize,
                                        [](FieldReader& f, DetokenizeRequest& r) {
                                          r.tokens = f.Tokens("tokens");
                                          r.remove_special = f.Bool("remove_special", false);
                                          r.unparse_special = f.Bool("unparse_special", false);
                                        });
}

ordered_json DetokenizeResponse::ToJson() const {
  ordered_json out;
  out["text"] = text;
  return out;
}

Result<DetokenizeResponse> DetokenizeResponse::FromJson(const json& j) {
  return ReadResponse<DetokenizeResponse>(
      j, op::kDetokenize, [](FieldReader& f, DetokenizeResponse& r) { r.text = f.String("text"); });
}

}  // namespace pipette::protocol
