#include "llama_session.h"

#include <common.h>  // common_cpu_get_num_math: llama.cpp tools' default threads

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <thread>
#include <utility>

#include "batch_plan.h"
#include "chat_template.h"
#include "common/monotonic_clock.h"
#include "common/proc_memory.h"
#include "context_options.h"
#include "imatrix_collector.h"
#include "imatrix_file.h"
#include "log_softmax.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/ops.h"
#include "pipette/protocol/quant_ops.h"
#include "pipette/util/field_reader.h"
#include "runtime_info.h"
#include "runtime_log.h"

namespace pipette::llama_worker {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using worker_common::Fail;
using worker_common::MemoryReading;
using worker_common::NowNs;
namespace op = protocol::op;

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kMaxMetaValueBytes = 1024;  // longer metadata values are left out

std::optional<int64_t> RssOrNone(const Result<MemoryReading>& reading) {
  if (!reading) return std::nullopt;
  return reading->rss;
}

// Calls a llama.cpp "write into buf, return the full length" function and returns the string.
template <typename Fn>
std::string ReadString(Fn&& fn) {
  std::string buf(256, '\0');
  int32_t n = fn(buf.data(), buf.size());
  if (n < 0) return {};
  if (static_cast<size_t>(n) >= buf.size()) {
    buf.assign(static_cast<size_t>(n) + 1, '\0');
    n = fn(buf.data(), buf.size());
    if (n < 0) return {};
  }
  buf.resize(static_cast<size_t>(n));
  return buf;
}

protocol::ModelInfo ModelInfo(const llama_model* model) {
  const llama_vocab* vocab = llama_model_get_vocab(model);
  protocol::ModelInfo info;
  info.desc =
      ReadString([&](char* buf, size_t size) { return llama_model_desc(model, buf, size); });
  info.n_params = static_cast<int64_t>(llama_model_n_params(model));
  info.size_bytes = static_cast<int64_t>(llama_model_size(model));
  info.n_vocab = llama_vocab_n_tokens(vocab);
  info.n_ctx_train = llama_model_n_ctx_train(model);
  info.n_layer = llama_model_n_layer(model);
  info.n_embd = llama_model_n_embd(model);
  info.bos = llama_vocab_bos(vocab);
  info.add_bos = llama_vocab_get_add_bos(vocab);
  info.eos = llama_vocab_eos(vocab);
  std::map<std::string, std::string> meta;  // sorted by key, for a stable output
  std::string value(kMaxMetaValueBytes + 1, '\0');
  for (int32_t i = 0; i < llama_model_meta_count(model); ++i) {
    const int32_t n = llama_model_meta_val_str_by_index(model, i, value.data(), value.size());
    if (n < 0 || n > kMaxMetaValueBytes) continue;
    const std::string key = ReadString(
        [&](char* buf, size_t size) { return llama_model_meta_key_by_index(model, i, buf, size); });
    meta[key] = std::string(value.data(), static_cast<size_t>(n));
  }
  info.meta = meta;
  return info;
}

}  // namespace

LlamaSession::~LlamaSession() {
  FreeContext();
  chat_template_.reset();
  model_.reset();
}

void LlamaSession::FreeContext() {
  if (batch_allocated_) llama_batch_free(batch_);
  batch_ = llama_batch{};
  batch_allocated_ = false;
  context_.reset();
}

Status LlamaSession::CheckReady(bool need_context) const {
  if (!model_) return Fail("no model loaded");
  if (need_context && !context_) return Fail("no context (send init_context first)");
  return {};
}

Status LlamaSession::CheckTokens(const std::vector<llama_token>& tokens,
                                 const std::string& field) const {
  const int32_t n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model_.get()));
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] < 0 || tokens[i] >= n_vocab) {
      return Fail("'" + field + "' holds token id " + std::to_string(tokens[i]) + " at index " +
                  std::to_string(i) + ", outside the vocabulary [0, " + std::to_string(n_vocab) +
                  ")");
    }
  }
  return {};
}

Result<int32_t> LlamaSession::ResolveBatch(const std::optional<int64_t>& requested) const {
  const int32_t context_batch = static_cast<int32_t>(llama_n_batch(context_.get()));
  const int64_t n_batch = requested.value_or(context_batch);
  if (n_batch > context_batch) {
    return Fail("n_batch " + std::to_string(n_batch) + " exceeds the context's n_batch " +
                std::to_string(context_batch) + " (set a larger n_batch in init_context)");
  }
  return static_cast<int32_t>(n_batch);
}

void LlamaSession::ClearForRequest() {
  llama_memory_clear(llama_get_memory(context_.get()), /*data=*/true);
  llama_perf_context_reset(context_.get());
}

Status LlamaSession::DecodeInBatches(const std::vector<llama_token>& tokens, int32_t pos0,
                                     int32_t n_batch, std::vector<int64_t>* batch_end_ns) {
  const int32_t n = static_cast<int32_t>(tokens.size());
  for (const BatchSpan& span : BatchSpans(n, n_batch)) {
    const int32_t start = static_cast<int32_t>(span.start);
    const int32_t count = static_cast<int32_t>(span.count);
    batch_.n_tokens = count;
    for (int32_t i = 0; i < count; ++i) {
      batch_.token[i] = tokens[start + i];
      batch_.pos[i] = pos0 + start + i;
      batch_.n_seq_id[i] = 1;
      batch_.seq_id[i][0] = 0;
      batch_.logits[i] = (start + i == n - 1) ? 1 : 0;
    }
    const int32_t rc = llama_decode(context_.get(), batch_);
    if (rc != 0) {
      return Fail("llama_decode returned " + std::to_string(rc) + " for the batch of " +
                  std::to_string(count) + " tokens at position " + std::to_string(pos0 + start));
    }
    // Backends may compute asynchronously: a batch has ended when its results are ready.
    llama_synchronize(context_.get());
    if (batch_end_ns != nullptr) batch_end_ns->push_back(NowNs());
  }
  return {};
}

llama_token LlamaSession::ArgmaxOfLast() {
  const float* logits = llama_get_logits_ith(context_.get(), -1);
  if (logits == nullptr) return -1;
  const int32_t n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model_.get()));
  return Argmax({logits, n_vocab});
}

ordered_json LlamaSession::RuntimePerf() const {
  const llama_perf_context_data perf = llama_perf_context(context_.get());
  ordered_json out;
  out["t_p_eval_ms"] = perf.t_p_eval_ms;
  out["n_p_eval"] = perf.n_p_eval;
  out["t_eval_ms"] = perf.t_eval_ms;
  out["n_eval"] = perf.n_eval;
  out["t_load_ms"] = perf.t_load_ms;
  return out;
}

std::vector<llama_token> LlamaSession::TokenizeText(const std::string& text, bool add_special,
                                                    bool parse_special) const {
  const llama_vocab* vocab = llama_model_get_vocab(model_.get());
  const int32_t text_len = static_cast<int32_t>(text.size());
  std::vector<llama_token> tokens(text.size() + 2);
  int32_t n = llama_tokenize(vocab, text.data(), text_len, tokens.data(),
                             static_cast<int32_t>(tokens.size()), add_special, parse_special);
  if (n < 0 && n != std::numeric_limits<int32_t>::min()) {
    tokens.resize(static_cast<size_t>(-n));
    n = llama_tokenize(vocab, text.data(), text_len, tokens.data(),
                       static_cast<int32_t>(tokens.size()), add_special, parse_special);
  }
  tokens.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return tokens;
}

Result<std::string> LlamaSession::DetokenizeTokens(const std::vector<llama_token>& tokens,
                                                   bool remove_special,
                                                   bool unparse_special) const {
  const llama_vocab* vocab = llama_model_get_vocab(model_.get());
  const int32_t n_tokens = static_cast<int32_t>(tokens.size());
  std::string text(tokens.size() * 8 + 16, '\0');
  int32_t n = llama_detokenize(vocab, tokens.data(), n_tokens, text.data(),
                               static_cast<int32_t>(text.size()), remove_special, unparse_special);
  if (n < 0) {
    text.assign(static_cast<size_t>(-static_cast<int64_t>(n)), '\0');
    n = llama_detokenize(vocab, tokens.data(), n_tokens, text.data(),
                         static_cast<int32_t>(text.size()), remove_special, unparse_special);
  }
  if (n < 0) return Fail("llama_detokenize failed");
  text.resize(static_cast<size_t>(n));
  return text;
}

Result<LlamaSession::TemplatedChat> LlamaSession::TemplatedPrompt(
    const protocol::ChatRequest& request) {
  TemplatedChat out;
  out.options = request.template_options;
  // Parsed once per loaded model, as llama-server does at start-up.
  if (!chat_template_) {
    auto loaded = ChatTemplate::Load(model_.get());
    if (!loaded) return loaded.error();
    chat_template_ = std::move(*loaded);
  }
  auto rendered = chat_template_->Render(request.messages, out.options);
  if (!rendered) return rendered.error();
  out.template_text = chat_template_->source();
  out.template_origin = chat_template_->origin();
  out.enable_thinking = rendered->enable_thinking;
  out.prompt = std::move(rendered->prompt);

  // Tokenized as llama-server tokenizes a chat completion's prompt: special tokens added as the
  // vocabulary asks (BOS; the engine has removed a BOS the template writes, so there is one) and
  // parsed (templates write their markers as text).
  out.tokens = TokenizeText(out.prompt, /*add_special=*/true, /*parse_special=*/true);
  if (out.tokens.empty()) return Fail("the formatted prompt tokenizes to no tokens");
  return out;
}

Reply LlamaSession::LoadModel(const json& request) {
  FieldReader fields(request, protocol::RequestName(op::kLoadModel));
  const std::string path = fields.String("path");
  // Absent: llama.cpp's defaults (llama_model_default_params(): load mode auto, all layers).
  llama_model_params params = llama_model_default_params();
  const bool has_mmap = fields.Has("use_mmap");
  const bool use_mmap = fields.Bool("use_mmap", true);
  const int64_t n_gpu_layers = fields.Int("n_gpu_layers", -1, kInt32Max, params.n_gpu_layers);
  if (!fields.ok()) return fields.status().error();

  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Fail("model file '" + path + "' does not exist or is not a regular file");
  }
  // The old model and its context go first, so the new one is measured on its own.
  FreeContext();
  chat_template_.reset();
  model_.reset();
  params.n_gpu_layers = static_cast<int32_t>(n_gpu_layers);
  if (has_mmap) params.load_mode = use_mmap ? LLAMA_LOAD_MODE_MMAP : LLAMA_LOAD_MODE_NONE;

  std::string log;
  const Result<MemoryReading> before = worker_common::ReadMemory();
  const int64_t t_start = NowNs();
  llama_model* model = nullptr;
  {
    LlamaErrorCapture capture;  // the load mode llama.cpp chose is only in its log
    model = llama_model_load_from_file(path.c_str(), params);
    log = capture.Log();
  }
  const int64_t t_end = NowNs();
  const Result<MemoryReading> after = worker_common::ReadMemory();
  if (model == nullptr) {
    return Fail("llama.cpp could not load '" + path +
                "' (its reason is on standard error); no model is loaded now");
  }
  model_.reset(model);

  protocol::LoadModelResponse out;
  out.t_start_ns = t_start;
  out.t_end_ns = t_end;
  out.rss_before = RssOrNone(before);
  out.rss_after = RssOrNone(after);
  out.model = ModelInfo(model);
  // What the load applied: the load mode llama.cpp logged ("mmap", "none"), else the request's.
  const std::string mode = LoadModeFromLog(log);
  out.applied["load_mode"] = !mode.empty() ? mode : !has_mmap ? "auto" : use_mmap ? "mmap" : "none";
  if (mode == "mmap" || mode == "none") {
    out.applied["use_mmap"] = mode == "mmap";
  } else if (has_mmap) {
    out.applied["use_mmap"] = use_mmap;
  } else {
    out.applied["use_mmap"] = "auto";
  }
  out.applied["n_gpu_layers"] = params.n_gpu_layers;
  return out.ToJson();
}

Reply LlamaSession::InitContext(const json& request) {
  if (Status ready = CheckReady(/*need_context=*/false); !ready) return ready.error();
  // A field the request leaves out is llama.cpp's default: llama_context_default_params(), and
  // for threads what llama.cpp's own tools default to (common_cpu_get_num_math(), as llama-bench
  // and llama-cli do; libllama's GGML_DEFAULT_N_THREADS is a fixed placeholder).
  const llama_context_params defaults = llama_context_default_params();
  FieldReader fields(request, protocol::RequestName(op::kInitContext));
  const int64_t n_ctx = fields.Int("n_ctx", 0, kInt32Max);
  const int64_t n_batch = fields.Int("n_batch", 1, kInt32Max, defaults.n_batch);
  const int64_t n_ubatch = fields.Int("n_ubatch", 1, kInt32Max, defaults.n_ubatch);
  const int64_t n_threads = fields.Int("n_threads", 1, kInt32Max, common_cpu_get_num_math());
  const int64_t n_threads_batch = fields.Int("n_threads_batch", 1, kInt32Max, n_threads);
  const std::string type_k_name = fields.String("type_k", ggml_type_name(defaults.type_k));
  const std::string type_v_name = fields.String("type_v", ggml_type_name(defaults.type_v));
  const bool swa_full = fields.Bool("swa_full", defaults.swa_full);
  auto flash_attn_setting = FlashAttnSetting(request, fields);
  if (!flash_attn_setting) return flash_attn_setting.error();
  const std::string flash_attn = *flash_attn_setting;
  if (!fields.ok()) return fields.status().error();
  const std::optional<ggml_type> type_k = KvCacheType(type_k_name);
  const std::optional<ggml_type> type_v = KvCacheType(type_v_name);
  if (!type_k || !type_v) {
    return Fail("unknown KV-cache type '" + (type_k ? type_v_name : type_k_name) +
                "' (known: " + KnownKvCacheTypes() + ")");
  }

  FreeContext();
  llama_context_params params = defaults;
  params.n_ctx = static_cast<uint32_t>(n_ctx);
  params.n_batch = static_cast<uint32_t>(n_batch);
  params.n_ubatch = static_cast<uint32_t>(n_ubatch);
  params.n_seq_max = 1;
  params.n_threads = static_cast<int32_t>(n_threads);
  params.n_threads_batch = static_cast<int32_t>(n_threads_batch);
  params.type_k = *type_k;
  params.type_v = *type_v;
  params.swa_full = swa_full;
  params.flash_attn_type = FlashAttnType(flash_attn);
  params.no_perf = false;  // keep llama_perf_context's counters for runtime_perf

  std::string log;
  const int64_t t_start = NowNs();
  llama_context* context = nullptr;
  {
    LlamaErrorCapture capture;  // how llama.cpp resolves flash attention is only in its log
    context = llama_init_from_model(model_.get(), params);
    log = capture.Log();
  }
  const int64_t t_end = NowNs();
  if (context == nullptr) {
    return Fail(
        "llama.cpp could not create the context (its reason is on standard "
        "error); no context exists now");
  }
  context_.reset(context);
  batch_ = llama_batch_init(static_cast<int32_t>(llama_n_batch(context)), 0, 1);
  batch_allocated_ = true;

  ordered_json out;
  out["t_start_ns"] = t_start;
  out["t_end_ns"] = t_end;
  out["n_ctx"] = llama_n_ctx(context);
  out["n_batch"] = llama_n_batch(context);
  out["n_ubatch"] = llama_n_ubatch(context);
  out["n_threads"] = llama_n_threads(context);
  out["n_threads_batch"] = llama_n_threads_batch(context);
  out["type_k"] = type_k_name;
  out["type_v"] = type_v_name;
  out["flash_attn"] = flash_attn;
  out["flash_attn_resolved"] = FlashAttnFromLog(log, flash_attn);
  out["swa_full"] = swa_full;
  // The sliding-window layers' cache as llama.cpp made it (null: the model has none).
  if (const std::optional<int64_t> cells = SwaCacheCellsFromLog(log)) {
    out["swa_cache_cells"] = *cells;
  } else {
    out["swa_cache_cells"] = nullptr;
  }
  // What llama.cpp allocated for the KV cache, as it logged it (kv_bytes_allocated).
  if (const std::optional<int64_t> bytes = KvBufferBytesFromLog(log)) {
    out["kv_buffer_bytes"] = *bytes;
  } else {
    out["kv_buffer_bytes"] = nullptr;
  }
  return out;
}

Reply LlamaSession::Tokenize(const json& request) {
  auto req = protocol::TokenizeRequest::FromJson(request);
  if (!req) return req.error();
  if (Status ready = CheckReady(/*need_context=*/false); !ready) return ready.error();
  if (req->text.size() > static_cast<size_t>(kInt32Max) / 2) return Fail("text is too long");
  protocol::TokenizeResponse out;
  out.tokens = TokenizeText(req->text, req->add_special, req->parse_special);
  return out.ToJson();
}

Reply LlamaSession::Detokenize(const json& request) {
  auto req = protocol::DetokenizeRequest::FromJson(request);
  if (!req) return req.error();
  if (Status ready = CheckReady(/*need_context=*/false); !ready) return ready.error();
  if (Status ids = CheckTokens(req->tokens, "tokens"); !ids) return ids.error();
  auto text = DetokenizeTokens(req->tokens, req->remove_special, req->unparse_special);
  if (!text) return text.error();
  return protocol::DetokenizeResponse{std::move(*text)}.ToJson();
}

Reply LlamaSession::Imatrix(const json& request) {
  auto req = protocol::ImatrixRequest::FromJson(request);
  if (!req) return req.error();
  if (Status ready = CheckReady(/*need_context=*/false); !ready) return ready.error();
  const int64_t hardware = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t n_threads = req->n_threads.value_or(hardware);
  const std::string& output = req->output;
  const std::filesystem::path output_dir = std::filesystem::path(output).parent_path();
  if (std::error_code ec; !output_dir.empty() && !std::filesystem::is_directory(output_dir, ec)) {
    return Fail("the directory of output " + output + " does not exist");
  }
  for (size_t i = 0; i < req->chunks.size(); ++i) {
    const std::string where = "chunks[" + std::to_string(i) + "]";
    if (Status ids = CheckTokens(req->chunks[i], where); !ids) return ids.error();
  }

  protocol::ImatrixResponse out;
  out.t_start_ns = NowNs();
  const ImatrixRun run{static_cast<int32_t>(n_threads), static_cast<int32_t>(req->n_batch)};
  auto file = CollectImatrix(model_.get(), req->chunks, run);
  if (!file) return file.error();
  if (Status written = WriteImatrixFile(output, *file); !written) return written.error();
  out.t_end_ns = NowNs();
  out.n_entries = static_cast<int64_t>(file->entries.size());
  out.n_chunks = file->n_chunks;
  out.n_tokens = file->n_tokens;
  return out.ToJson();
}

}  // namespace pipette::llama_worker
