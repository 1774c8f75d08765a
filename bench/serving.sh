#!/usr/bin/env bash
# Served beside in process (BENCHMARKS.md "Serving"): bench/serving.yaml into a store of its own,
# then `report --vary runtime` (in process beside each concurrency), `report --vary concurrency` (how
# the server degrades under load), bench/serving-runtimes.yaml's `report --vary runtime` (the same
# F32 weights in process, behind llama-server and under ONNX Runtime), and the endpoint's own rows
# as Pipette derived them (per-stream
# and aggregate throughput, ITL, e2e, the server's prompt_ms and the serving overhead), selected
# from the CSV report. Run on a quiet machine after `make test` (or `make setup`).
# Usage: bench/serving.sh [OUT_DIR]   (the store is kept there; default a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-}
if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
db="$out/serving.db"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
build/pipette run bench/serving.yaml --store "$db" >"$out/serving.log" 2>&1 ||
  { echo "bench/serving.yaml failed: see $out/serving.log" >&2; exit 1; }
echo "## bench/serving.yaml ($(($(date +%s) - start)) s, load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
build/pipette report --store "$db" --vary runtime
build/pipette report --store "$db" --vary concurrency
# The same F32 weights in process, behind llama-server and under ONNX Runtime (its own store).
start=$(date +%s)
build/pipette run bench/serving-runtimes.yaml --store "$out/runtimes.db" >"$out/runtimes.log" 2>&1 ||
  { echo "bench/serving-runtimes.yaml failed: see $out/runtimes.log" >&2; exit 1; }
echo "## bench/serving-runtimes.yaml ($(($(date +%s) - start)) s, load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
build/pipette report --store "$out/runtimes.db" --vary runtime
echo
echo "## the endpoint's rows (median, n), by concurrency"
build/pipette report --store "$db" --format json |
  jq -r '.results[] | select(.runtime == "openai" and .value != null and .subset == ""
           and (.test | test("^(tg|ttft)"))
           and (.metric | test("^(throughput|aggregate_throughput|itl_p50|itl_p99|ttft|e2e|server_prompt_ms|serving_overhead|failed_streams|token_count_mismatches)$")))
         | [.params.concurrency, .test, .metric, .unit, (.median * 100 | round / 100), .n] | @tsv' |
  sort -k1,1n -k2,2 -k3,3 | column -t
