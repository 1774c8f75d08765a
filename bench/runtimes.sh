#!/usr/bin/env bash
# The runtime dimension (BENCHMARKS.md, "Runtimes"): examples/runtimes.yaml (schemes A to D: the
# bundled SmolLM2 under ONNX Runtime fp32, W8A8, W4A16 RTN and GPTQ, and llama.cpp Q4_1 and F32)
# and bench/runtime-agreement.yaml (the fp32 weights under llama.cpp, ONNX Runtime, OpenVINO and
# MNN), each into a store of its own, then their tables: `report --vary scheme` and
# `report --vary runtime`. Run on a quiet machine after `make test` (or `make setup`); the first run
# converts (GPTQ takes several minutes and 3 GiB) and later ones take models/converted.
# Usage: bench/runtimes.sh [OUT_DIR]   (the stores are kept there; default a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-}
if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ex in examples/runtimes.yaml bench/runtime-agreement.yaml; do
  db="$out/$(basename "$ex" .yaml).db"
  start=$(date +%s)
  build/pipette run "$ex" --store "$db" >"$out/$(basename "$ex" .yaml).log" 2>&1 ||
    { echo "$ex failed: see $out/$(basename "$ex" .yaml).log" >&2; exit 1; }
  echo "## $ex ($(($(date +%s) - start)) s, load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
  build/pipette report --store "$db" --vary scheme
  build/pipette report --store "$db" --vary runtime
done
