#!/usr/bin/env bash
# Benchmarks of Pipette itself (results go in BENCHMARKS.md with this command):
#   1. overhead: tg ms/token measured by Pipette / ms/token from llama.cpp's own perf counters,
#      per cell, side by side in the same repetitions (target <= 1.01);
#   2. the quickstart's total wall time (examples/quickstart.yaml), three runs.
# Run on a quiet machine: bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "## tg overhead: Pipette ms/token vs llama.cpp's llama_perf_context"
bench/tg-overhead.sh
echo

echo "## quickstart wall time (build/pipette run examples/quickstart.yaml)"
times=()
for i in 1 2 3; do
  start=$(date +%s.%N)
  build/pipette run examples/quickstart.yaml --store "$tmp/quick.db" >/dev/null 2>&1
  end=$(date +%s.%N)
  times+=("$(echo "$end - $start" | bc)")
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "runs: %s s, %s s, %s s; median %s s\n", a[1], a[2], a[3], a[2]}'
