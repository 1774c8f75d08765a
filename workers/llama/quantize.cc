#include "quantize.h"

#include <ggml.h>
#include <llama.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <thread>
#include <vector>

#include "common/monotonic_clock.h"
#include "imatrix_file.h"
#include "pipette/protocol/quant_ops.h"
#include "quantize_options.h"
#include "runtime_info.h"

namespace pipette::llama_worker {
namespace {

using nlohmann::json;
using worker_common::Fail;
using worker_common::NowNs;

// The metadata llama-quantize writes about the imatrix it used.
std::vector<llama_model_kv_override> ImatrixMetadata(const std::string& path,
                                                     const ImatrixFile& file) {
  std::vector<llama_model_kv_override> kv;
  auto add = [&kv](const char* key) -> llama_model_kv_override& {
    llama_model_kv_override& o = kv.emplace_back();
    std::memset(&o, 0, sizeof(o));
    std::strncpy(o.key, key, sizeof(o.key) - 1);
    return o;
  };
  if (path.size() < sizeof(llama_model_kv_override::val_str)) {
    llama_model_kv_override& o = add("quantize.imatrix.file");
    o.tag = LLAMA_KV_OVERRIDE_TYPE_STR;
    std::strncpy(o.val_str, path.c_str(), sizeof(o.val_str) - 1);
  }
  llama_model_kv_override& entries = add("quantize.imatrix.entries_count");
  entries.tag = LLAMA_KV_OVERRIDE_TYPE_INT;
  entries.val_i64 = static_cast<int64_t>(file.entries.size());
  llama_model_kv_override& chunks = add("quantize.imatrix.chunks_count");
  chunks.tag = LLAMA_KV_OVERRIDE_TYPE_INT;
  chunks.val_i64 = file.n_chunks;
  add("");  // the terminator: an empty key
  return kv;
}

}  // namespace

worker_common::Reply Quantize(const json& request) {
  auto req = protocol::QuantizeRequest::FromJson(request);
  if (!req) return req.error();
  const std::string& input = req->input;
  const std::string& output = req->output;
  const int64_t hardware = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t n_threads = req->n_threads.value_or(hardware);
  const std::string imatrix_path = req->imatrix.value_or("");

  const FileType* type = FindFileType(req->type);
  if (type == nullptr) {
    return Fail("unknown quantization type '" + req->type + "'; known: " + FileTypeNames());
  }
  auto resolved = ResolveOverrides(req->overrides);
  if (!resolved) return resolved.error();
  const std::vector<TensorOverride>& overrides = *resolved;
  if (IsFloatFileType(type->ftype) && !overrides.empty()) {
    // llama.cpp consults the overrides only when the file type's default is a quantized type.
    return Fail(std::string("'overrides' need a quantized 'type': llama.cpp ignores them with ") +
                type->name + " (use e.g. Q8_0 with overrides for the tensors to change)");
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(input, ec)) {
    return Fail("input model file " + input + " does not exist");
  }
  const std::filesystem::path output_dir = std::filesystem::path(output).parent_path();
  if (!output_dir.empty() && !std::filesystem::is_directory(output_dir, ec)) {
    return Fail("the directory of output " + output + " does not exist");
  }
  if (std::filesystem::equivalent(input, output, ec)) {
    return Fail("output " + output + " is the input file");
  }
  auto n_override_tensors = MatchOverrides(input, overrides);
  if (!n_override_tensors) return n_override_tensors.error();
  ImatrixFile imatrix;
  if (!imatrix_path.empty()) {
    auto read = ReadImatrixFile(imatrix_path);
    if (!read) return read.error();
    imatrix = std::move(*read);
  }

  // The arrays llama.cpp reads, each ending with its terminator; they point into `overrides`
  // and `imatrix`, which outlive the call.
  std::vector<llama_model_tensor_override> tt_overrides;
  for (const TensorOverride& o : overrides) tt_overrides.push_back({o.pattern.c_str(), o.type});
  tt_overrides.push_back({nullptr, GGML_TYPE_COUNT});
  std::vector<llama_model_imatrix_data> imatrix_data;
  for (const auto& [name, entry] : imatrix.entries) {
    imatrix_data.push_back({name.c_str(), entry.values.data(), entry.values.size()});
  }
  imatrix_data.push_back({nullptr, nullptr, 0});
  std::vector<llama_model_kv_override> kv_overrides;
  if (!imatrix_path.empty()) kv_overrides = ImatrixMetadata(imatrix_path, imatrix);

  llama_model_quantize_params params = llama_model_quantize_default_params();
  params.nthread = static_cast<int32_t>(n_threads);
  params.ftype = type->ftype;
  params.allow_requantize = req->allow_requantize;
  if (!overrides.empty()) params.tt_overrides = tt_overrides.data();
  if (!imatrix_path.empty()) {
    params.imatrix = imatrix_data.data();
    params.kv_overrides = kv_overrides.data();
  }

  // Written under another name and renamed when complete: a failure leaves no partial file, and
  // does not touch a file already at `output`.
  const std::string partial = output + ".partial";
  LlamaErrorCapture capture;
  const int64_t t_start = NowNs();
  uint32_t rc = 1;
  std::string thrown;
  try {
    rc = llama_model_quantize(input.c_str(), partial.c_str(), &params);
  } catch (const std::exception& e) {
    thrown = e.what();
  }
  const int64_t t_end = NowNs();
  if (rc != 0) {
    std::filesystem::remove(partial, ec);
    std::string reason = !thrown.empty() ? thrown : capture.LastError();
    constexpr std::string_view kPrefix = "llama_model_quantize: failed to quantize: ";
    if (reason.starts_with(kPrefix)) reason.erase(0, kPrefix.size());
    if (reason.empty()) reason = "no reason given; see standard error";
    return Fail("llama_model_quantize failed (returned " + std::to_string(rc) + "): " + reason +
                "; no output was written");
  }
  std::filesystem::rename(partial, output, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    return Fail("cannot rename " + partial + " to " + output + ": " + ec.message());
  }
  const uintmax_t size = std::filesystem::file_size(output, ec);

  protocol::QuantizeResponse out;
  out.t_start_ns = t_start;
  out.t_end_ns = t_end;
  if (!ec) out.output_size = static_cast<int64_t>(size);
  out.type = type->name;
  out.n_threads = n_threads;
  out.n_overrides = static_cast<int64_t>(overrides.size());
  out.n_override_tensors = *n_override_tensors;
  out.n_imatrix_entries = static_cast<int64_t>(imatrix.entries.size());
  return out.ToJson();
}

}  // namespace pipette::llama_worker
