#include "pipette/protocol/quant_ops.h"

#include <utility>

namespace pipette::protocol {

using nlohmann::json;
using nlohmann::ordered_json;

json QuantizeRequest::ToJson() const {
  json j = {{"op", op::kQuantize},
            {"input", input},
            {"output", output},
            {"type", type},
            {"allow_requantize", allow_requantize}};
  if (n_threads) j["n_threads"] = *n_threads;
  json list = json::array();
  for (const TensorTypeOverride& o : overrides) {
    list.push_back({{"pattern", o.pattern}, {"type", o.type}});
  }
  j["overrides"] = std::move(list);
  if (imatrix) j["imatrix"] = *imatrix;
  return j;
}

Result<QuantizeRequest> QuantizeRequest::FromJson(const json& j) {
  return ReadRequest<QuantizeRequest>(j, op::kQuantize, [](FieldReader& f, QuantizeRequest& r) {
    r.input = f.String("input");
    r.output = f.String("output");
    r.type = f.String("type");
    r.n_threads = f.OptionalInt("n_threads", 1, 4096);
    r.allow_requantize = f.Bool("allow_requantize", true);
    r.imatrix = f.OptionalString("imatrix");
    if (r.imatrix && r.imatrix->empty()) r.imatrix.reset();
    if (f.ok() && r.output.empty()) f.Fail("field 'output' is empty");
    if (f.ok() && f.Has("overrides")) {
      const json list = f.Array("overrides");
      for (size_t i = 0; f.ok() && i < list.size(); ++i) {
        FieldReader o = f.Nested(list[i], "overrides[" + std::to_string(i) + "]");
        TensorTypeOverride entry{o.String("pattern"), o.String("type")};
        f.Take(o);
        r.overrides.push_back(std::move(entry));
      }
    }
  });
}

ordered_json QuantizeResponse::ToJson() const {
  ordered_json out;
  out["t_start_ns"] = t_start_ns;
  out["t_end_ns"] = t_end_ns;
  out["output_size"] = output_size ? ordered_json(*output_size) : ordered_json(nullptr);
  out["type"] = type;
  out["n_threads"] = n_threads;
  out["n_overrides"] = n_overrides;
  out["n_override_tensors"] = n_override_tensors;
  out["n_imatrix_entries"] = n_imatrix_entries;
  return out;
}

Result<QuantizeResponse> QuantizeResponse::FromJson(const json& j) {
  return ReadResponse<QuantizeResponse>(j, op::kQuantize, [](FieldReader& f, QuantizeResponse& r) {
    ReadTimeSpan(f, &r.t_start_ns, &r.t_end_ns);
    r.output_size = f.OptionalInt("output_size", 0, kInt64Max);
    r.type = f.String("type");
    r.n_threads = f.Int("n_threads", 1, kInt64Max);
    r.n_overrides = f.Int("n_overrides", 0, kInt64Max);
    r.n_override_tensors = f.Int("n_override_tensors", 0, kInt64Max);
    r.n_imatrix_entries = f.Int("n_imatrix_entries", 0, kInt64Max);
  });
}

json ImatrixRequest::ToJson() const {
  json j = {{"op", op::kImatrix}, {"chunks", chunks}, {"output", output}, {"n_batch", n_batch}};
  if (n_threads) j["n_threads"] = *n_threads;
  return j;
}

Result<ImatrixRequest> ImatrixRequest::FromJson(const json& j) {
  return ReadRequest<ImatrixRequest>(j, op::kImatrix, [](FieldReader& f, ImatrixRequest& r) {
    r.output = f.String("output");
    r.n_threads = f.OptionalInt("n_threads", 1, 4096);
    r.n_batch = f.Int("n_batch", 1, kInt32Max, 512);
    if (f.ok() && r.output.empty()) f.Fail("field 'output' is empty");
    const json chunks = f.Array("chunks");
    if (f.ok() && chunks.empty()) {
      f.Fail("field 'chunks' must be a non-empty array of arrays of token ids");
    }
    for (size_t i = 0; f.ok() && i < chunks.size(); ++i) {
      const std::string name = "chunks[" + std::to_string(i) + "]";
      const json wrapped = {{name, chunks[i]}};  // the reader keeps a reference: keep it alive
      FieldReader chunk(wrapped, RequestName(op::kImatrix));
      r.chunks.push_back(chunk.Tokens(name.c_str()));
      f.Take(chunk);
      if (f.ok() && r.chunks.back().empty()) f.Fail(name + " is empty");
      if (f.ok() && r.chunks.back().size() > static_cast<size_t>(kInt32Max) / 2) {
        f.Fail(name + " is too long");
      }
    }
  });
}

ordered_json ImatrixResponse::ToJson() const {
  ordered_json out;
  out["t_start_ns"] = t_start_ns;
  out["t_end_ns"] = t_end_ns;
  out["n_entries"] = n_entries;
  out["n_chunks"] = n_chunks;
  out["n_tokens"] = n_tokens;
  return out;
}

Result<ImatrixResponse> ImatrixResponse::FromJson(const json& j) {
  return ReadResponse<ImatrixResponse>(j, op::kImatrix, [](FieldReader& f, ImatrixResponse& r) {
    ReadTimeSpan(f, &r.t_start_ns, &r.t_end_ns);
    r.n_entries = f.Int("n_entries", 0, kInt64Max);
    r.n_chunks = f.Int("n_chunks", 0, kInt64Max);
    r.n_tokens = f.Int("n_tokens", 0, kInt64Max);
  });
}

}  // namespace pipette::protocol
