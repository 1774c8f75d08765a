#include "batch_plan.h"

#include <algorithm>

namespace pipette::llama_worker {

std::vector<BatchSpan> BatchSpans(int64_t n, int64_t n_batch) {
  std::vector<BatchSpan> out;
  for (int64_t start = 0; start < n; start += n_batch) {
    out.push_back({start, std::min(n_batch, n - start)});
  }
  return out;
}

}  // namespace pipette::llama_worker
