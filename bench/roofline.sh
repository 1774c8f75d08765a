#!/usr/bin/env bash
# The roofline and context-growth tables of BENCHMARKS.md (docs/metrics.md "The roofline",
# "kv_bytes"): each quantization's tg64 with bytes per token and bw_util, predicted from Q4_0 by
# `pipette predict`; Gemma 3's depth ladder to 8192 with kv_bytes and peak RSS; and the
# controller's own peak RSS on each run.
# Run on a quiet machine: bench/roofline.sh [store-folder]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-results/bench-roofline}
mkdir -p "$dir"
for m in smollm2 gemma3; do
  build/pipette run "bench/roofline-$m.yaml" --store "$dir/$m.db" 2>&1 | grep "controller peak RSS"
  echo "## $m: tg64 predicted from Q4_0"
  build/pipette predict --store "$dir/$m.db" --from Q4_0
  echo
done
build/pipette run bench/depth.yaml --store "$dir/depth.db" 2>&1 | grep "controller peak RSS"
echo "## depth ladder (gemma3-270m-q4_k_m, tg32)"
echo "| depth | tg32 t/s | kv_bytes_allocated MiB (llama.cpp) | (computed) | kv_bytes_used MiB | bytes/token MiB | bw_util | peak RSS MiB |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
build/pipette report --store "$dir/depth.db" --format json | python3 -c '
import json, sys
rows = json.load(sys.stdin)["results"]
by = {}
for r in rows:
    by.setdefault(r["cell"], {})[(r["test"], r["metric"])] = r
for cell in sorted(by):
    f = by[cell]
    any_row = next(iter(f.values()))
    mib = lambda k: "%.2f" % (f[k]["value"] / 2**20) if k in f and f[k]["value"] is not None else "n/a"
    val = lambda k, fmt: fmt % f[k]["value"] if k in f and f[k]["value"] is not None else "n/a"
    print("| %d | %s | %s | %s | %s | %s | %s | %s |" % (any_row["params"]["depth"],
        val(("tg32", "throughput"), "%.2f"), mib(("memory", "kv_bytes_allocated")),
        mib(("memory", "kv_bytes_allocated_model")),
        mib(("tg32", "kv_bytes_used")), mib(("tg32", "bytes_per_token")),
        val(("tg32", "bw_util"), "%.3f"), mib(("memory", "peak_rss"))))
'
