#!/usr/bin/env bash
# The quantization tables of BENCHMARKS.md: SmolLM2 and Gemma 3 in six llama.cpp quantizations
# (and an importance-matrix Q4_0), each made here from the bundled file, with speed, memory,
# perplexity and KL divergence against the F16 variant, measured in one run per model.
# Run on a quiet machine: bench/quantize.sh [store]   (prints the --vary quant tables)
set -euo pipefail
cd "$(dirname "$0")/.."
store=${1:-results/bench-quantize.db}
for m in smollm2 gemma3; do
  build/pipette run "bench/quantize-$m.yaml" --store "$store" --no-bandwidth >/dev/null
  echo "## $m"
  build/pipette report --store "$store" --vary quant
  echo
done
