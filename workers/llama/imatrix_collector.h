// Collects an importance matrix with a loaded model, the way llama.cpp's imatrix tool does for
// dense models: the per-column mean of the squared activations entering every "blk.*" weight
// of a matrix multiplication (GGML_OP_MUL_MAT), gathered through the scheduler's eval callback.
#pragma once

#include <llama.h>

#include <cstdint>
#include <string>
#include <vector>

#include "imatrix_file.h"
#include "pipette/util/result.h"

namespace pipette::llama_worker {

struct ImatrixRun {
  int32_t n_threads = 1;
  int32_t n_batch = 512;  // tokens per decode call (and per micro-batch)
};

// Decodes each chunk (token ids already checked against the vocabulary) from position 0 into an
// empty KV cache of a temporary context of its own, then frees that context. The matrix:
// entries, n_chunks, n_tokens.
Result<ImatrixFile> CollectImatrix(llama_model* model,
                                   const std::vector<std::vector<llama_token>>& chunks,
                                   const ImatrixRun& run);

}  // namespace pipette::llama_worker
