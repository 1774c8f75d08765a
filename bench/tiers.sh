#!/usr/bin/env bash
# The emulated tiers and the sustained run of BENCHMARKS.md: bench/tiers.yaml (this machine and
# three tiers of it: speed, peak RSS, oom) and bench/sustained.yaml (a minute of decoding here and
# on the low tier, with e2e@128+64). Needs cgroup v1's cpu, cpuset and memory controllers
# writable (root). Run on a quiet machine: bench/tiers.sh [store-folder]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-results/bench-tiers}
mkdir -p "$dir"
# A run with an oom cell exits 1: the tables are what this script is for.
build/pipette run bench/tiers.yaml --store "$dir/tiers.db" --no-bandwidth >/dev/null 2>&1 || true
build/pipette report --store "$dir/tiers.db" --format md
echo
build/pipette run bench/sustained.yaml --store "$dir/sustained.db" --no-bandwidth >/dev/null 2>&1 || true
build/pipette report --store "$dir/sustained.db" --format md
