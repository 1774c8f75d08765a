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

#include "chat_template.h"
#include "frame_stream.h"
#include "imatrix_collector.h"
#include "imatrix_file.h"
#include "log_softmax.h"
#include "monotonic_clock.h"
#include "proc_memory.h"
#include "request_fields.h"
#include "runtime_info.h"
#include "runtime_log.h"

namespace pipette::llama_worker {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kMaxMetaValueBytes = 1024;  // longer metadata values are left out

// The KV-cache types init_context accepts, by the names the protocol uses.
std::optional<ggml_type> KvCacheType(const std::string& name) {
  static const std::pair<const char*, ggml_type> kTypes[] = {
      {"f32", GGML_TYPE_F32},   {"f16", GGML_TYPE_F16},   {"bf16", GGML_TYPE_BF16},
      {"q8_0", GGML_TYPE_Q8_0}, {"q4_0", GGML_TYPE_Q4_0}, {"q4_1", GGML_TYPE_Q4_1},
      {"q5_0", GGML_TYPE_Q5_0}, {"q5_1", GGML_TYPE_Q5_1},
  };
  for (const auto& [type_name, type] : kTypes) {
    if (name == type_name) return type;
  }
  return std::nullopt;
}

ordered_json MemoryOrNull(const std::optional<MemoryReading>& reading) {
  return reading ? ordered_json(reading->rss) : ordered_json(nullptr);
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

ordered_json ModelInfo(const llama_model* model) {
  const llama_vocab* vocab = llama_model_get_vocab(model);
  ordered_json info;
  info["desc"] =
      ReadString([&](char* buf, size_t size) { return llama_model_desc(model, buf, size); });
  info["n_params"] = llama_model_n_params(model);
  info["size_bytes"] = llama_model_size(model);
  info["n_vocab"] = llama_vocab_n_tokens(vocab);
  info["n_ctx_train"] = llama_model_n_ctx_train(model);
  info["n_layer"] = llama_model_n_layer(model);
  info["n_embd"] = llama_model_n_embd(model);
  info["bos"] = llama_vocab_bos(vocab);
  info["add_bos"] = llama_vocab_get_add_bos(vocab);
  info["eos"] = llama_vocab_eos(vocab);
  std::map<std::string, std::string> meta;  // sorted by key, for a stable output
  std::string value(kMaxMetaValueBytes + 1, '\0');
  for (int32_t i = 0; i < llama_model_meta_count(model); ++i) {
    const int32_t n = llama_model_meta_val_str_by_index(model, i, value.data(), value.size());
    if (n < 0 || n > kMaxMetaValueBytes) continue;
    const std::string key = ReadString(
        [&](char* buf, size_t size) { return llama_model_meta_key_by_index(model, i, buf, size); });
    meta[key] = std::string(value.data(), static_cast<size_t>(n));
  }
  info["meta"] = meta;
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

std::string LlamaSession::CheckReady(bool need_context) const {
  if (!model_) return "no model loaded";
  if (need_context && !context_) return "no context (send init_context first)";
  return {};
}

std::string LlamaSession::CheckTokens(const std::vector<llama_token>& tokens,
                                      const char* field) const {
  const int32_t n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model_.get()));
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] < 0 || tokens[i] >= n_vocab) {
      return std::string("'") + field + "' holds token id " + std::to_string(tokens[i]) +
             " at index " + std::to_string(i) + ", outside the vocabulary [0, " +
             std::to_string(n_vocab) + ")";
    }
  }
  return {};
}

std::string LlamaSession::ResolveBatch(int64_t requested, int32_t* n_batch) const {
  const int32_t context_batch = static_cast<int32_t>(llama_n_batch(context_.get()));
  if (requested == 0) requested = context_batch;
  if (requested > context_batch) {
    return "n_batch " + std::to_string(requested) + " exceeds the context's n_batch " +
           std::to_string(context_batch) + " (set a larger n_batch in init_context)";
  }
  *n_batch = static_cast<int32_t>(requested);
  return {};
}

void LlamaSession::ClearForRequest() {
  llama_memory_clear(llama_get_memory(context_.get()), /*data=*/true);
  llama_perf_context_reset(context_.get());
}

std::string LlamaSession::DecodeInBatches(const std::vector<llama_token>& tokens, int32_t pos0,
                                          int32_t n_batch, std::vector<int64_t>* batch_end_ns) {
  const int32_t n = static_cast<int32_t>(tokens.size());
  for (int32_t start = 0; start < n; start += n_batch) {
    const int32_t count = std::min(n_batch, n - start);
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
      return "llama_decode returned " + std::to_string(rc) + " for the batch of " +
             std::to_string(count) + " tokens at position " + std::to_string(pos0 + start);
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

bool LlamaSession::DetokenizeTokens(const std::vector<llama_token>& tokens, bool remove_special,
                                    bool unparse_special, std::string* text) const {
  const llama_vocab* vocab = llama_model_get_vocab(model_.get());
  const int32_t n_tokens = static_cast<int32_t>(tokens.size());
  text->assign(tokens.size() * 8 + 16, '\0');
  int32_t n = llama_detokenize(vocab, tokens.data(), n_tokens, text->data(),
                               static_cast<int32_t>(text->size()), remove_special, unparse_special);
  if (n < 0) {
    text->assign(static_cast<size_t>(-static_cast<int64_t>(n)), '\0');
    n = llama_detokenize(vocab, tokens.data(), n_tokens, text->data(),
                         static_cast<int32_t>(text->size()), remove_special, unparse_special);
  }
  if (n < 0) {
    text->clear();
    return false;
  }
  text->resize(static_cast<size_t>(n));
  return true;
}

std::string LlamaSession::TemplatedPrompt(const json& request, TemplatedChat* out) {
  const json& messages = request["messages"];
  if (!messages.is_array() || messages.empty()) {
    return "field 'messages' must be a non-empty array of {\"role\":..,\"content\":..} objects";
  }
  std::vector<ChatMessage> chat;
  for (size_t i = 0; i < messages.size(); ++i) {
    const json& message = messages[i];
    const std::string where = "messages[" + std::to_string(i) + "]";
    if (!message.is_object()) return where + " must be an object";
    const auto role = message.find("role");
    const auto content = message.find("content");
    if (role == message.end() || !role->is_string()) return where + " needs a string 'role'";
    if (content == message.end() || !content->is_string()) {
      return where + " needs a string 'content'";
    }
    chat.push_back({role->get<std::string>(), content->get<std::string>()});
  }
  out->options = json::object();
  if (const auto options = request.find("template_options");
      options != request.end() && !options->is_null()) {
    if (!options->is_object()) return "field 'template_options' must be an object";
    out->options = *options;
  }

  // Parsed once per loaded model, as llama-server does at start-up.
  if (!chat_template_) {
    if (std::string e = ChatTemplate::Load(model_.get(), &chat_template_); !e.empty()) return e;
  }
  RenderedChat rendered;
  if (std::string e = chat_template_->Render(chat, out->options, &rendered); !e.empty()) return e;
  out->template_text = chat_template_->source();
  out->template_origin = chat_template_->origin();
  out->enable_thinking = rendered.enable_thinking;
  out->prompt = std::move(rendered.prompt);

  // Tokenized as llama-server tokenizes a chat completion's prompt: special tokens added as the
  // vocabulary asks (BOS; the engine has removed a BOS the template writes, so there is one) and
  // parsed (templates write their markers as text).
  out->tokens = TokenizeText(out->prompt, /*add_special=*/true, /*parse_special=*/true);
  if (out->tokens.empty()) return "the formatted prompt tokenizes to no tokens";
  return {};
}

Reply LlamaSession::LoadModel(const json& request) {
  RequestFields fields(request);
  const std::string path = fields.String("path");
  // Absent: llama.cpp's defaults (llama_model_default_params(): load mode auto, all layers).
  llama_model_params params = llama_model_default_params();
  const bool has_mmap = fields.Has("use_mmap");
  const bool use_mmap = fields.Bool("use_mmap", true);
  const int64_t n_gpu_layers = fields.Int("n_gpu_layers", -1, kInt32Max, params.n_gpu_layers);
  if (!fields.ok()) return Reply::Fail(fields.error());

  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Reply::Fail("model file '" + path + "' does not exist or is not a regular file");
  }
  // The old model and its context go first, so the new one is measured on its own.
  FreeContext();
  chat_template_.reset();
  model_.reset();
  params.n_gpu_layers = static_cast<int32_t>(n_gpu_layers);
  if (has_mmap) params.load_mode = use_mmap ? LLAMA_LOAD_MODE_MMAP : LLAMA_LOAD_MODE_NONE;

  std::string log;
  const std::optional<MemoryReading> before = ReadMemory();
  const int64_t t_start = NowNs();
  llama_model* model = nullptr;
  {
    LlamaErrorCapture capture;  // the load mode llama.cpp chose is only in its log
    model = llama_model_load_from_file(path.c_str(), params);
    log = capture.Log();
  }
  const int64_t t_end = NowNs();
  const std::optional<MemoryReading> after = ReadMemory();
  if (model == nullptr) {
    return Reply::Fail("llama.cpp could not load '" + path +
                       "' (its reason is on standard error); no model is loaded now");
  }
  model_.reset(model);

  ordered_json out;
  out["t_start_ns"] = t_start;
  out["t_end_ns"] = t_end;
  out["rss_before"] = MemoryOrNull(before);
  out["rss_after"] = MemoryOrNull(after);
  out["model"] = ModelInfo(model);
  // What the load applied: the load mode llama.cpp logged ("mmap", "none"), else the request's.
  const std::string mode = LoadModeFromLog(log);
  out["load_mode"] = !mode.empty() ? mode : !has_mmap ? "auto" : use_mmap ? "mmap" : "none";
  if (mode == "mmap" || mode == "none") {
    out["use_mmap"] = mode == "mmap";
  } else if (has_mmap) {
    out["use_mmap"] = use_mmap;
  } else {
    out["use_mmap"] = "auto";
  }
  out["n_gpu_layers"] = params.n_gpu_layers;
  return Reply::Ok(std::move(out));
}

Reply LlamaSession::InitContext(const json& request) {
  if (std::string e = CheckReady(/*need_context=*/false); !e.empty()) return Reply::Fail(e);
  // A field the request leaves out is llama.cpp's default: llama_context_default_params(), and
  // for threads what llama.cpp's own tools default to (common_cpu_get_num_math(), as llama-bench
  // and llama-cli do; libllama's GGML_DEFAULT_N_THREADS is a fixed placeholder).
  const llama_context_params defaults = llama_context_default_params();
  RequestFields fields(request);
  const int64_t n_ctx = fields.Int("n_ctx", 0, kInt32Max);
  const int64_t n_batch = fields.Int("n_batch", 1, kInt32Max, defaults.n_batch);
  const int64_t n_ubatch = fields.Int("n_ubatch", 1, kInt32Max, defaults.n_ubatch);
  const int64_t n_threads = fields.Int("n_threads", 1, kInt32Max, common_cpu_get_num_math());
  const int64_t n_threads_batch = fields.Int("n_threads_batch", 1, kInt32Max, n_threads);
  const std::string type_k_name = fields.String("type_k", ggml_type_name(defaults.type_k));
  const std::string type_v_name = fields.String("type_v", ggml_type_name(defaults.type_v));
  const bool swa_full = fields.Bool("swa_full", defaults.swa_full);
  std::string flash_attn = "auto";  // llama.cpp's default (LLAMA_FLASH_ATTN_TYPE_AUTO)
  if (fields.Has("flash_attn")) {
    // "auto" | "on" | "off"; true/false (protocol 1's form) mean on/off.
    const json& fa = request["flash_attn"];
    if (fa.is_boolean()) {
      flash_attn = fa.get<bool>() ? "on" : "off";
    } else {
      flash_attn = fields.String("flash_attn");
      if (flash_attn != "auto" && flash_attn != "on" && flash_attn != "off") {
        return Reply::Fail("'flash_attn' must be \"auto\", \"on\" or \"off\", got '" + flash_attn +
                           "'");
      }
    }
  }
  if (!fields.ok()) return Reply::Fail(fields.error());
  const std::optional<ggml_type> type_k = KvCacheType(type_k_name);
  const std::optional<ggml_type> type_v = KvCacheType(type_v_name);
  if (!type_k || !type_v) {
    return Reply::Fail("unknown KV-cache type '" + (type_k ? type_v_name : type_k_name) +
                       "' (known: f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1)");
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
  params.flash_attn_type = flash_attn == "on"    ? LLAMA_FLASH_ATTN_TYPE_ENABLED
                           : flash_attn == "off" ? LLAMA_FLASH_ATTN_TYPE_DISABLED
                                                 : LLAMA_FLASH_ATTN_TYPE_AUTO;
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
    return Reply::Fail(
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
  return Reply::Ok(std::move(out));
}

Reply LlamaSession::Tokenize(const json& request) {
  if (std::string e = CheckReady(/*need_context=*/false); !e.empty()) return Reply::Fail(e);
  RequestFields fields(request);
  const std::string text = fields.String("text");
  const bool add_special = fields.Bool("add_special", true);
  const bool parse_special = fields.Bool("parse_special", false);
  if (!fields.ok()) return Reply::Fail(fields.error());
  if (text.size() > static_cast<size_t>(kInt32Max) / 2) return Reply::Fail("text is too long");
  ordered_json out;
  out["tokens"] = TokenizeText(text, add_special, parse_special);
  return Reply::Ok(std::move(out));
}

Reply LlamaSession::Detokenize(const json& request) {
  if (std::string e = CheckReady(/*need_context=*/false); !e.empty()) return Reply::Fail(e);
  RequestFields fields(request);
  const std::vector<llama_token> tokens = fields.Tokens("tokens");
  const bool remove_special = fields.Bool("remove_special", false);
  const bool unparse_special = fields.Bool("unparse_special", false);
  if (!fields.ok()) return Reply::Fail(fields.error());
  if (std::string e = CheckTokens(tokens, "tokens"); !e.empty()) return Reply::Fail(e);
  std::string text;
  if (!DetokenizeTokens(tokens, remove_special, unparse_special, &text)) {
    return Reply::Fail("llama_detokenize failed");
  }
  ordered_json out;
  out["text"] = std::move(text);
  return Reply::Ok(std::move(out));
}

Reply LlamaSession::PromptProcessing(const json& request) {
  if (std::string e = CheckReady(/*need_context=*/true); !e.empty()) return Reply::Fail(e);
  RequestFields fields(request);
  const std::vector<llama_token> tokens = fields.Tokens("tokens");
  const int64_t requested_batch = fields.Int("n_batch", 1, kInt32Max, 0);
  if (!fields.ok()) return Reply::Fail(fields.error());
  if (tokens.empty()) return Reply::Fail("'tokens' is empty: nothing to process");
  if (std::string e = CheckTokens(tokens, "tokens"); !e.empty()) return Reply::Fail(e);
  const uint32_t n_ctx = llama_n_ctx(context_.get());
  if (tokens.size() > n_ctx) {
    return Reply::Fail(std::to_string(tokens.size()) + " tokens do not fit the context (n_ctx " +
                       std::to_string(n_ctx) + ")");
  }
  int32_t n_batch = 0;
  if (std::string e = ResolveBatch(requested_batch, &n_batch); !e.empty()) return Reply::Fail(e);

  ClearForRequest();
  std::vector<int64_t> batch_end_ns;
  const int64_t t_start = NowNs();
  if (std::string e = DecodeInBatches(tokens, 0, n_batch, &batch_end_ns); !e.empty()) {
    return Reply::Fail(e);
  }
  const float* logits = llama_get_logits_ith(context_.get(), -1);
  if (logits == nullptr) return Reply::Fail("llama.cpp returned no logits for the last token");
  [[maybe_unused]] volatile float first_logit = logits[0];
  const int64_t t_end = NowNs();

  ordered_json out;
  out["n_tokens"] = tokens.size();
  out["t_start_ns"] = t_start;
  out["t_end_ns"] = t_end;
  out["batch_end_ns"] = batch_end_ns;
  out["runtime_perf"] = RuntimePerf();
  return Reply::Ok(std::move(out));
}

Reply LlamaSession::Generate(const json& request) {
  if (std::string e = CheckReady(/*need_context=*/true); !e.empty()) return Reply::Fail(e);
  RequestFields fields(request);
  const std::vector<llama_token> prompt = fields.Tokens("prompt", {});
  const llama_token first_token = static_cast<llama_token>(
      fields.Int("first_token", std::numeric_limits<int32_t>::min(), kInt32Max));
  const int64_t n_gen = fields.Int("n_gen", 1, kInt32Max);
  const int64_t requested_batch = fields.Int("n_batch", 1, kInt32Max, 0);
  if (!fields.ok()) return Reply::Fail(fields.error());
  if (std::string e = CheckTokens(prompt, "prompt"); !e.empty()) return Reply::Fail(e);
  if (std::string e = CheckTokens({first_token}, "first_token"); !e.empty()) {
    return Reply::Fail(e);
  }
  const uint32_t n_ctx = llama_n_ctx(context_.get());
  if (static_cast<int64_t>(prompt.size()) + n_gen > n_ctx) {
    return Reply::Fail("prompt (" + std::to_string(prompt.size()) + " tokens) plus n_gen (" +
                       std::to_string(n_gen) + ") do not fit the context (n_ctx " +
                       std::to_string(n_ctx) + ")");
  }
  int32_t n_batch = 0;
  if (std::string e = ResolveBatch(requested_batch, &n_batch); !e.empty()) return Reply::Fail(e);

  ClearForRequest();
  if (std::string e = DecodeInBatches(prompt, 0, n_batch, nullptr); !e.empty()) {
    return Reply::Fail("decoding the prompt: " + e);
  }
  const int32_t pos0 = static_cast<int32_t>(prompt.size());
  std::vector<int64_t> token_end_ns;
  std::vector<llama_token> tokens;
  token_end_ns.reserve(static_cast<size_t>(n_gen));
  tokens.reserve(static_cast<size_t>(n_gen));
  llama_token next = first_token;
  const int64_t t_start = NowNs();
  for (int32_t step = 0; step < n_gen; ++step) {
    batch_.n_tokens = 1;
    batch_.token[0] = next;
    batch_.pos[0] = pos0 + step;
    batch_.n_seq_id[0] = 1;
    batch_.seq_id[0][0] = 0;
    batch_.logits[0] = 1;
    const int32_t rc = llama_decode(context_.get(), batch_);
    if (rc != 0) {
      return Reply::Fail("llama_decode returned " + std::to_string(rc) + " at step " +
                         std::to_string(step));
    }
    next = ArgmaxOfLast();
    token_end_ns.push_back(NowNs());
    if (next < 0) {
      return Reply::Fail("llama.cpp returned no logits at step " + std::to_string(step));
    }
    tokens.push_back(next);
  }

  ordered_json out;
  out["n_gen"] = n_gen;
  out["t_start_ns"] = t_start;
  out["token_end_ns"] = token_end_ns;
  out["tokens"] = tokens;
  out["runtime_perf"] = RuntimePerf();
  return Reply::Ok(std::move(out));
}

Reply LlamaSession::TimeToFirstToken(const json& request) {
  if (std::string e = CheckReady(/*need_context=*/true); !e.empty()) return Reply::Fail(e);
  RequestFields fields(request);
  const std::string text = fields.String("text");
  const int64_t requested_batch = fields.Int("n_batch", 1, kInt32Max, 0);
  const bool add_special = fields.Bool("add_special", true);
  const bool parse_special = fields.Bool("parse_special", false);
  if (!fields.ok()) return Reply::Fail(fields.error());
  if (text.size() > static_cast<size_t>(kInt32Max) / 2) return Reply::Fail("text is too long");
  int32_t n_batch = 0;
  if (std::string e = ResolveBatch(requested_batch, &n_batch); !e.empty()) return Reply::Fail(e);

  ClearForRequest();
  const int64_t t_start = NowNs();
  const std::vector<llama_token> tokens = TokenizeText(text, add_special, parse_special);
  const int64_t t_tokenized = NowNs();
  if (tokens.empty()) return Reply::Fail("the text tokenizes to no tokens");
  const uint32_t n_ctx = llama_n_ctx(context_.get());
  if (tokens.size() > n_ctx) {
    return Reply::Fail("the text tokenizes to " + std::to_string(tokens.size()) +
                       " tokens, which do not fit the context (n_ctx " + std::to_string(n_ctx) +
                       ")");
  }
  if (std::string e = DecodeInBatches(tokens, 0, n_batch, nullptr); !e.empty()) {
    return Reply::Fail(e);
  }
  const llama_token token = ArgmaxOfLast();
  const int64_t t_first_token = NowNs();
  if (token < 0) return Reply::Fail("llama.cpp returned no logits for the last token");

  ordered_json out;
  out["n_prompt_tokens"] = tokens.size();
  out["t_start_ns"] = t_start;
  out["t_tokenized_ns"] = t_tokenized;
  out["t_first_token_ns"] = t_first_token;
  out["token"] = token;
  out["runtime_perf"] = RuntimePerf();
  return Reply::Ok(std::move(out));
}

Reply LlamaSession::Score(const json& request, FrameStream* stream) {
  if (std::string e = CheckReady(/*need_context=*/true); !e.empty()) return Reply::Fail(e);
  RequestFields fields(request);
  const std::vector<llama_token> tokens = fields.Tokens("tokens");
  const int64_t from = fields.Int("from", 0, kInt32Max, 0);
  const int64_t requested_batch = fields.Int("n_batch", 1, kInt32Max, 0);
  const int64_t top_k = fields.Int("top_k", 0, 1000, 0);
  const bool frames = fields.Bool("logits", false);
  if (!fields.ok()) return Reply::Fail(fields.error());
  if (frames && (top_k > 0 || request.contains("ids"))) {
    return Reply::Fail("'logits' sends every logit: it does not combine with 'top_k' or 'ids'");
  }
  if (frames && stream == nullptr) return Reply::Fail("this channel cannot carry frames");
  const int64_t n = static_cast<int64_t>(tokens.size());
  if (n < 2) return Reply::Fail("'tokens' needs at least 2 tokens: a context and a next token");
  if (from > n - 2) {
    return Reply::Fail("'from' " + std::to_string(from) + " leaves no position to score in " +
                       std::to_string(n) + " tokens");
  }
  if (std::string e = CheckTokens(tokens, "tokens"); !e.empty()) return Reply::Fail(e);
  if (n > static_cast<int64_t>(llama_n_ctx(context_.get()))) {
    return Reply::Fail(std::to_string(n) + " tokens do not fit the context (n_ctx " +
                       std::to_string(llama_n_ctx(context_.get())) + ")");
  }
  const int64_t n_scored = n - 1 - from;
  // Optional: for each scored position, token ids whose log-probabilities are wanted.
  std::vector<std::vector<llama_token>> ids;
  if (request.contains("ids") && !request["ids"].is_null()) {
    const json& arr = request["ids"];
    if (!arr.is_array() || static_cast<int64_t>(arr.size()) != n_scored) {
      return Reply::Fail("'ids' must be an array with one list of token ids per scored position (" +
                         std::to_string(n_scored) + ")");
    }
    for (const json& row : arr) {
      const json wrapped = {{"ids", row}};  // RequestFields keeps a reference: keep it alive
      RequestFields rf(wrapped);
      ids.push_back(rf.Tokens("ids"));
      if (!rf.ok()) return Reply::Fail(rf.error());
      if (std::string e = CheckTokens(ids.back(), "ids"); !e.empty()) return Reply::Fail(e);
    }
  }
  int32_t n_batch = 0;
  if (std::string e = ResolveBatch(requested_batch, &n_batch); !e.empty()) return Reply::Fail(e);
  const int32_t n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model_.get()));

  ordered_json logprob = ordered_json::array(), argmax = ordered_json::array(),
               lse = ordered_json::array(), top_ids = ordered_json::array(),
               top_lp = ordered_json::array(), ids_lp = ordered_json::array(),
               top_tail = ordered_json::array(), ids_tail = ordered_json::array();
  ClearForRequest();
  const int64_t t_start = NowNs();
  if (frames) {
    // The response line announces the frames; the facts follow as binary frames, position by
    // position, as each batch is decoded (the worker never holds more than one batch's logits).
    ordered_json head;
    head["n_tokens"] = n;
    head["from"] = from;
    head["frames"] = n_scored;
    head["n_vocab"] = n_vocab;
    head["t_start_ns"] = t_start;
    if (!stream->Line(head)) return Reply::Fail("cannot write to the controller");
  }
  for (int64_t start = 0; start < n; start += n_batch) {
    const int32_t count = static_cast<int32_t>(std::min<int64_t>(n_batch, n - start));
    batch_.n_tokens = count;
    for (int32_t i = 0; i < count; ++i) {
      const int64_t pos = start + i;
      batch_.token[i] = tokens[pos];
      batch_.pos[i] = static_cast<llama_pos>(pos);
      batch_.n_seq_id[i] = 1;
      batch_.seq_id[i][0] = 0;
      batch_.logits[i] = (pos >= from && pos <= n - 2) ? 1 : 0;
    }
    if (const int32_t rc = llama_decode(context_.get(), batch_); rc != 0) {
      return Reply::Fail("llama_decode returned " + std::to_string(rc) + " for the batch at " +
                         "position " + std::to_string(start));
    }
    // This batch's outputs are overwritten by the next decode: read them now (frames: send
    // them, flushed before the next batch so the controller can reduce while it decodes).
    for (int32_t i = 0; i < count; ++i) {
      const int64_t pos = start + i;
      if (pos < from || pos > n - 2) continue;
      const float* logits = llama_get_logits_ith(context_.get(), i);
      if (logits == nullptr)
        return Reply::Fail("llama.cpp returned no logits at " + std::to_string(pos));
      if (frames) {
        for (int32_t v = 0; v < n_vocab; ++v) {
          if (!std::isfinite(logits[v])) {
            return Reply::Fail("the logits at position " + std::to_string(pos) +
                               " are not finite (NaN or infinity): the model or runtime is broken");
          }
        }
        if (!stream->Logits(static_cast<int32_t>(pos), NowNs(), logits, n_vocab)) {
          return Reply::Fail("cannot write to the controller");
        }
        continue;
      }
      const LogitView view{logits, n_vocab};
      const double log_sum_exp = LogSumExp(view);
      if (!std::isfinite(log_sum_exp)) {
        return Reply::Fail("the logits at position " + std::to_string(pos) +
                           " are not finite (NaN or infinity): the model or runtime is broken");
      }
      lse.push_back(log_sum_exp);
      logprob.push_back(double(logits[tokens[pos + 1]]) - log_sum_exp);
      argmax.push_back(Argmax(view));
      if (top_k > 0) {
        ordered_json row_ids = ordered_json::array(), row_lp = ordered_json::array();
        std::vector<int32_t> chosen;
        for (const auto& [id, lp] : TopK(view, static_cast<int32_t>(top_k), log_sum_exp)) {
          row_ids.push_back(id);
          row_lp.push_back(lp);
          chosen.push_back(id);
        }
        top_ids.push_back(std::move(row_ids));
        top_lp.push_back(std::move(row_lp));
        top_tail.push_back(TailLogProb(view, chosen, log_sum_exp));
      }
      if (!ids.empty()) {
        ordered_json row = ordered_json::array();
        const std::vector<llama_token>& wanted = ids[static_cast<size_t>(pos - from)];
        for (llama_token id : wanted) row.push_back(double(logits[id]) - log_sum_exp);
        ids_lp.push_back(std::move(row));
        ids_tail.push_back(TailLogProb(view, wanted, log_sum_exp));
      }
    }
    if (frames && !stream->Flush()) return Reply::Fail("cannot write to the controller");
  }
  const int64_t t_end = NowNs();
  if (frames) return Reply::Ok({});
  ordered_json out;
  out["n_tokens"] = n;
  out["from"] = from;
  out["t_start_ns"] = t_start;
  out["t_end_ns"] = t_end;
  out["logprob"] = std::move(logprob);
  out["argmax"] = std::move(argmax);
  out["logsumexp"] = std::move(lse);
  if (top_k > 0) {
    out["top_ids"] = std::move(top_ids);
    out["top_logprobs"] = std::move(top_lp);
    out["top_tail_logprob"] = std::move(top_tail);
  }
  if (!ids.empty()) {
    out["ids_logprob"] = std::move(ids_lp);
    out["ids_tail_logprob"] = std::move(ids_tail);
  }
  return Reply::Ok(std::move(out));
}

Reply LlamaSession::Chat(const json& request) {
  if (std::string e = CheckReady(/*need_context=*/true); !e.empty()) return Reply::Fail(e);
  RequestFields fields(request);
  const bool has_messages = fields.Has("messages");
  const bool has_prompt_tokens = fields.Has("prompt_tokens");
  const std::vector<llama_token> prompt_tokens =
      has_prompt_tokens ? fields.Tokens("prompt_tokens") : std::vector<llama_token>{};
  const int64_t max_tokens = fields.Int("max_tokens", 1, kInt32Max);
  const int64_t requested_batch = fields.Int("n_batch", 1, kInt32Max, 0);
  if (!fields.ok()) return Reply::Fail(fields.error());
  if (has_messages == has_prompt_tokens) {
    return Reply::Fail("send exactly one of 'messages' (templated chat) and 'prompt_tokens'");
  }
  int32_t n_batch = 0;
  if (std::string e = ResolveBatch(requested_batch, &n_batch); !e.empty()) return Reply::Fail(e);

  std::vector<llama_token> prompt;
  std::string prompt_text;
  ordered_json template_fields = {{"template", nullptr}};
  if (has_messages) {
    TemplatedChat templated;
    if (std::string e = TemplatedPrompt(request, &templated); !e.empty()) return Reply::Fail(e);
    prompt = std::move(templated.tokens);
    prompt_text = std::move(templated.prompt);
    template_fields = {{"template", std::move(templated.template_text)},
                       {"template_origin", std::move(templated.template_origin)},
                       {"template_options", std::move(templated.options)},
                       {"enable_thinking", templated.enable_thinking}};
  } else {
    if (request.contains("template_options")) {
      return Reply::Fail(
          "'template_options' go with 'messages'; 'prompt_tokens' are not templated");
    }
    if (prompt_tokens.empty()) return Reply::Fail("'prompt_tokens' is empty: nothing to continue");
    if (std::string e = CheckTokens(prompt_tokens, "prompt_tokens"); !e.empty()) {
      return Reply::Fail(e);
    }
    prompt = prompt_tokens;
    // No formatted text exists: report the prompt's own text, special tokens rendered.
    if (!DetokenizeTokens(prompt, /*remove_special=*/false, /*unparse_special=*/true,
                          &prompt_text)) {
      return Reply::Fail("llama_detokenize failed on 'prompt_tokens'");
    }
  }
  const int64_t n_prompt = static_cast<int64_t>(prompt.size());
  const uint32_t n_ctx = llama_n_ctx(context_.get());
  if (n_prompt + max_tokens > n_ctx) {
    return Reply::Fail("the prompt (" + std::to_string(n_prompt) + " tokens) plus max_tokens (" +
                       std::to_string(max_tokens) + ") = " + std::to_string(n_prompt + max_tokens) +
                       " do not fit the context (n_ctx " + std::to_string(n_ctx) + ")");
  }

  const llama_vocab* vocab = llama_model_get_vocab(model_.get());
  ClearForRequest();
  const int64_t t_start = NowNs();
  if (std::string e = DecodeInBatches(prompt, 0, n_batch, nullptr); !e.empty()) {
    return Reply::Fail("decoding the prompt: " + e);
  }
  std::vector<llama_token> tokens;
  tokens.reserve(static_cast<size_t>(max_tokens));
  int64_t t_first_token = 0;
  const char* stop = "max_tokens";
  for (int64_t step = 0;; ++step) {
    const llama_token next = ArgmaxOfLast();
    if (step == 0) t_first_token = NowNs();
    if (next < 0) {
      return Reply::Fail("llama.cpp returned no logits at step " + std::to_string(step));
    }
    if (llama_vocab_is_eog(vocab, next)) {
      stop = "eog";
      break;
    }
    tokens.push_back(next);
    if (static_cast<int64_t>(tokens.size()) == max_tokens) break;
    // Only a token that will be continued is decoded.
    batch_.n_tokens = 1;
    batch_.token[0] = next;
    batch_.pos[0] = static_cast<llama_pos>(n_prompt + step);
    batch_.n_seq_id[0] = 1;
    batch_.seq_id[0][0] = 0;
    batch_.logits[0] = 1;
    if (const int32_t rc = llama_decode(context_.get(), batch_); rc != 0) {
      return Reply::Fail("llama_decode returned " + std::to_string(rc) + " at generation step " +
                         std::to_string(step));
    }
  }
  const int64_t t_end = NowNs();
  // The whole list at once, so that characters split across tokens come out whole.
  std::string text;
  if (!DetokenizeTokens(tokens, /*remove_special=*/false, /*unparse_special=*/false, &text)) {
    return Reply::Fail("llama_detokenize failed on the generated tokens");
  }

  ordered_json out = std::move(template_fields);
  out["prompt"] = std::move(prompt_text);
  out["n_prompt_tokens"] = n_prompt;
  out["tokens"] = tokens;
  out["text"] = std::move(text);
  out["stop"] = stop;
  out["t_start_ns"] = t_start;
  out["t_first_token_ns"] = t_first_token;
  out["t_end_ns"] = t_end;
  return Reply::Ok(std::move(out));
}

Reply LlamaSession::Imatrix(const json& request) {
  if (std::string e = CheckReady(/*need_context=*/false); !e.empty()) return Reply::Fail(e);
  RequestFields fields(request);
  const std::string output = fields.String("output");
  const int64_t hardware = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t n_threads = fields.Int("n_threads", 1, 4096, hardware);
  const int64_t n_batch = fields.Int("n_batch", 1, kInt32Max, 512);
  if (!fields.ok()) return Reply::Fail(fields.error());
  if (output.empty()) return Reply::Fail("field 'output' is empty");
  const std::filesystem::path output_dir = std::filesystem::path(output).parent_path();
  if (std::error_code ec; !output_dir.empty() && !std::filesystem::is_directory(output_dir, ec)) {
    return Reply::Fail("the directory of output " + output + " does not exist");
  }
  const auto chunks_it = request.find("chunks");
  if (chunks_it == request.end() || !chunks_it->is_array() || chunks_it->empty()) {
    return Reply::Fail("field 'chunks' must be a non-empty array of arrays of token ids");
  }
  std::vector<std::vector<llama_token>> chunks;
  for (size_t i = 0; i < chunks_it->size(); ++i) {
    const json wrapped = {{"chunk", (*chunks_it)[i]}};  // RequestFields keeps a reference
    RequestFields chunk_fields(wrapped);
    chunks.push_back(chunk_fields.Tokens("chunk"));
    const std::string where = "chunks[" + std::to_string(i) + "]";
    if (!chunk_fields.ok()) return Reply::Fail(where + ": " + chunk_fields.error());
    if (chunks.back().empty()) return Reply::Fail(where + " is empty");
    if (chunks.back().size() > static_cast<size_t>(kInt32Max) / 2) {
      return Reply::Fail(where + " is too long");
    }
    if (std::string e = CheckTokens(chunks.back(), where.c_str()); !e.empty()) {
      return Reply::Fail(e);
    }
  }

  const int64_t t_start = NowNs();
  ImatrixFile file;
  const ImatrixRun run{static_cast<int32_t>(n_threads), static_cast<int32_t>(n_batch)};
  if (std::string e = CollectImatrix(model_.get(), chunks, run, &file); !e.empty()) {
    return Reply::Fail(e);
  }
  if (std::string e = WriteImatrixFile(output, file); !e.empty()) return Reply::Fail(e);
  const int64_t t_end = NowNs();

  ordered_json out;
  out["t_start_ns"] = t_start;
  out["t_end_ns"] = t_end;
  out["n_entries"] = file.entries.size();
  out["n_chunks"] = file.n_chunks;
  out["n_tokens"] = file.n_tokens;
  return Reply::Ok(std::move(out));
}

}  // namespace pipette::llama_worker
