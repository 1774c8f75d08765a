#!/usr/bin/env bash
# Pipette's tg measurement overhead (BENCHMARKS.md, "Measurement overhead of tg"): runs
# bench/overhead.yaml (both bundled models, threads 1 and 2, tg128, 2 warm-ups + 10
# repetitions) and compares, per cell, Pipette's tg ms/token (ms_per_token: worker timestamps
# around each decode call and the greedy argmax) with llama.cpp's own counters for the very same
# calls (runtime_ms_per_token: llama_perf_context's t_eval_ms / n_eval), medians of the
# repetitions and their ratio. Target: ratio <= 1.01.
# Usage: bench/tg-overhead.sh   (run on a quiet machine)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
build/pipette run bench/overhead.yaml --store "$tmp/overhead.db" --no-bandwidth >/dev/null
build/pipette report --store "$tmp/overhead.db" --format json >"$tmp/overhead.json"
jq -r '
  .results as $r
  | ["model", "threads", "Pipette ms/token (median)", "llama_perf ms/token (median)", "ratio", "n"],
    ["---", "---:", "---:", "---:", "---:", "---:"],
    ( [$r[] | select(.test == "tg128" and .metric == "ms_per_token")] | .[] as $p
      | ($r[] | select(.cell == $p.cell and .test == "tg128"
                       and .metric == "runtime_ms_per_token")) as $q
      | [ $p.model, ($p.params.threads | tostring), ($p.median * 1000 | round / 1000 | tostring),
          ($q.median * 1000 | round / 1000 | tostring),
          ($p.median / $q.median * 10000 | round / 10000 | tostring), ($p.n | tostring) ] )
  | "| " + join(" | ") + " |"' "$tmp/overhead.json"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
