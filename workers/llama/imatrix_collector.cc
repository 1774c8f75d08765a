#include "imatrix_collector.h"

#include <ggml-backend.h>
#include <ggml.h>
#include <llama-cpp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace pipette::llama_worker {
namespace {

constexpr int32_t kCtxAlign = 256;

// Sums of squared activations per weight tensor, filled by the eval callback.
class Collector {
 public:
  static bool Callback(ggml_tensor* t, bool ask, void* user_data) {
    auto* self = static_cast<Collector*>(user_data);
    if (ask) return Wanted(t);
    self->Collect(t);
    return true;  // go on computing the graph
  }

  ImatrixFile Take() const {
    ImatrixFile file;
    for (const auto& [name, sums] : sums_) {
      const int64_t count = counts_.at(name);
      if (count == 0) continue;
      ImatrixEntry entry;
      entry.count = count;
      entry.values.reserve(sums.size());
      for (double s : sums) entry.values.push_back(static_cast<float>(s / double(count)));
      file.entries.emplace(name, std::move(entry));
    }
    return file;
  }

  // Ok, or the first problem the callback met (it cannot return one itself).
  Status status() const {
    if (error_.empty()) return {};
    return Error{error_};
  }

 private:
  // The weight's name, without the "<backend>#...#<n>" decoration the scheduler gives copies.
  static std::string WeightName(const ggml_tensor* weight) {
    const char* name = weight->name;
    const char* first = std::strchr(name, '#');
    if (first == nullptr) return name;
    const char* second = std::strchr(first + 1, '#');
    return second == nullptr ? std::string(first + 1) : std::string(first + 1, second);
  }

  static bool Wanted(const ggml_tensor* t) {
    // MUL_MAT_ID (mixture-of-experts routing) is not collected.
    if (t->op != GGML_OP_MUL_MAT) return false;
    const ggml_tensor* weight = t->src[0];
    const ggml_tensor* input = t->src[1];
    if (weight == nullptr || input == nullptr || input->type != GGML_TYPE_F32) return false;
    return WeightName(weight).starts_with("blk.");
  }

  void Collect(const ggml_tensor* t) {
    const ggml_tensor* weight = t->src[0];
    const ggml_tensor* input = t->src[1];
    const std::string name = WeightName(weight);
    if (input->nb[0] != sizeof(float)) {
      if (error_.empty()) error_ = "the input of " + name + " is not contiguous in its rows";
      return;
    }
    const char* data = static_cast<const char*>(input->data);
    if (input->buffer == nullptr || !ggml_backend_buffer_is_host(input->buffer)) {
      host_copy_.resize(ggml_nbytes(input));
      ggml_backend_tensor_get(input, host_copy_.data(), 0, host_copy_.size());
      data = host_copy_.data();
    }
    const int64_t n_cols = input->ne[0];
    const int64_t n_mat = weight->ne[2] * weight->ne[3];  // 1 for a 2-D weight
    std::vector<double>& sums = sums_[name];
    if (sums.empty()) sums.assign(static_cast<size_t>(n_cols * n_mat), 0.0);
    if (sums.size() != static_cast<size_t>(n_cols * n_mat)) {
      if (error_.empty()) error_ = "inconsistent input sizes for " + name;
      return;
    }
    for (int64_t i3 = 0; i3 < input->ne[3]; ++i3) {
      for (int64_t i2 = 0; i2 < input->ne[2]; ++i2) {
        const int64_t mat = (i3 % weight->ne[3]) * weight->ne[2] + (i2 % weight->ne[2]);
        double* acc = sums.data() + mat * n_cols;
        for (int64_t row = 0; row < input->ne[1]; ++row) {
          const auto* x = reinterpret_cast<const float*>(data + row * input->nb[1] +
                                                         i2 * input->nb[2] + i3 * input->nb[3]);
          for (int64_t j = 0; j < n_cols; ++j) acc[j] += double(x[j]) * double(x[j]);
        }
      }
    }
    counts_[name] += ggml_nrows(input) / n_mat;
  }

  std::map<std::string, std::vector<double>> sums_;
  std::map<std::string, int64_t> counts_;
  std::vector<char> host_copy_;
  std::string error_;
};

}  // namespace

Result<ImatrixFile> CollectImatrix(llama_model* model,
                                   const std::vector<std::vector<llama_token>>& chunks,
                                   const ImatrixRun& run) {
  size_t longest = 0;
  for (const auto& chunk : chunks) longest = std::max(longest, chunk.size());
  const int32_t n_ctx = static_cast<int32_t>((longest + kCtxAlign - 1) / kCtxAlign * kCtxAlign);
  const int32_t n_batch = std::min(run.n_batch, n_ctx);

  Collector collector;
  llama_context_params params = llama_context_default_params();
  params.n_ctx = static_cast<uint32_t>(n_ctx);
  params.n_batch = static_cast<uint32_t>(n_batch);
  params.n_ubatch = static_cast<uint32_t>(n_batch);
  params.n_seq_max = 1;
  params.n_threads = run.n_threads;
  params.n_threads_batch = run.n_threads;
  params.cb_eval = &Collector::Callback;
  params.cb_eval_user_data = &collector;
  llama_context_ptr context(llama_init_from_model(model, params));
  if (!context) {
    return Error{"llama.cpp could not create the imatrix context (n_ctx " + std::to_string(n_ctx) +
                 "; its reason is on standard error)"};
  }
  llama_batch batch = llama_batch_init(n_batch, 0, 1);
  Status failed;
  int64_t n_tokens = 0;
  for (size_t c = 0; c < chunks.size() && failed.ok(); ++c) {
    const auto& chunk = chunks[c];
    llama_memory_clear(llama_get_memory(context.get()), /*data=*/true);
    const int32_t n = static_cast<int32_t>(chunk.size());
    for (int32_t start = 0; start < n && failed.ok(); start += n_batch) {
      const int32_t count = std::min(n_batch, n - start);
      batch.n_tokens = count;
      for (int32_t i = 0; i < count; ++i) {
        batch.token[i] = chunk[static_cast<size_t>(start + i)];
        batch.pos[i] = start + i;
        batch.n_seq_id[i] = 1;
        batch.seq_id[i][0] = 0;
        // Every position is an output, so that the last layer (which llama.cpp otherwise
        // computes for the output rows only) sees every token, as in llama.cpp's imatrix tool.
        batch.logits[i] = 1;
      }
      if (const int32_t rc = llama_decode(context.get(), batch); rc != 0) {
        failed = Error{"llama_decode returned " + std::to_string(rc) + " in chunk " +
                       std::to_string(c) + " at position " + std::to_string(start)};
      }
      llama_synchronize(context.get());
      if (failed.ok()) failed = collector.status();
    }
    n_tokens += n;
  }
  llama_batch_free(batch);
  context.reset();
  if (!failed) return failed.error();

  ImatrixFile result = collector.Take();
  result.n_chunks = static_cast<int64_t>(chunks.size());
  result.n_tokens = n_tokens;
  if (result.entries.empty()) {
    return Error{
        "no activations were collected (the model has no \"blk.*\" matrix "
        "multiplications that the collector takes; mixture-of-experts weights are not "
        "collected)"};
  }
  return result;
}

}  // namespace pipette::llama_worker
