#!/usr/bin/env bash
# How fast a plan of 10,000 cells expands (BENCHMARKS.md, "Plan expansion of 10,000 cells"):
# bench/plan-speed.yaml sweeps one model over 125 x 8 x 10 parameter values. Builds the timer
# (build/pipette_plan_speed, bench/plan_speed.cc), which reads the experiment once and expands its
# plan REPS times (default 15), printing the median wall and CPU time; then times the whole
# `pipette run bench/plan-speed.yaml --dry-run` (reading the file, the plan, printing 10,000
# lines) REPS times. Target: the expansion under 100 ms.
# Usage: bench/plan-speed.sh   (REPS= to change the repetitions; PIPETTE_WORKERS_DIR= where the
#        worker programs are, if not in build/)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${REPS:-15}
cmake --build build --target pipette_plan_speed >/dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
build/pipette_plan_speed bench/plan-speed.yaml models "${PIPETTE_WORKERS_DIR:-build}" datasets "$reps"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
times=()
for _ in $(seq "$reps"); do
  start=$(date +%s.%N)
  build/pipette run bench/plan-speed.yaml --dry-run --store "$tmp/none.db" >/dev/null
  end=$(date +%s.%N)
  times+=("$(echo "($end - $start) * 1000" | bc)")
done
printf '%s\n' "${times[@]}" | sort -n |
  awk -v n="$reps" '{a[NR] = $1} END {printf "pipette run --dry-run, %d runs: median %.1f ms\n", n, a[int((NR + 1) / 2)]}'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
