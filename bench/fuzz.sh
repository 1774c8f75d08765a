#!/usr/bin/env bash
# Runs each fuzz harness (fuzz/README.md) to RUNS executions (default 10,000,000), one after the
# other, from its seeds and the corpus earlier runs grew, and prints a Markdown table of the
# executions, the wall time, executions per second and the crashes, for BENCHMARKS.md "Fuzzing".
# Each row is also appended to build-fuzz/fuzz-bench.md as it completes (a long run can be
# followed, or stopped and its finished rows kept). FORK=N runs N jobs at once (libFuzzer's
# -fork=N, one corpus, the executions of all jobs counted together toward RUNS), for a machine with
# N cores to give. Usage: [RUNS=N] [FORK=N] bench/fuzz.sh [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/fuzz-lib.sh
RUNS=${RUNS:-10000000}
FORK=${FORK:-}
# ASan records no allocation stack for each malloc (about 30% more executions a second for
# endpoint_replies, measured side by side): a finding still stops the run with the stack of the bad
# access; run its input through the harness alone (fuzz/README.md) for the allocation's stack too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0}
[ -x "$FUZZ_BIN/gate_fuzz" ] || scripts/fuzz-build.sh
scripts/fuzz-seeds.sh 2>/dev/null
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || mapfile -t harnesses < <(fuzz_harnesses)
out=build-fuzz/fuzz-bench.md
printf '\n| harness | executions | wall time | exec/s | crashes |\n|---|---:|---:|---:|---|\n' | tee -a "$out"
for h in "${harnesses[@]}"; do
  mkdir -p "build-fuzz/corpus/$h" build-fuzz/crashes
  log="build-fuzz/$h.bench.log"
  start=$(date +%s)
  rc=0
  # shellcheck disable=SC2046
  "$FUZZ_BIN/${h}_fuzz" "${FUZZ_OPTS[@]}" $(fuzz_dict "$h") -runs="$RUNS" ${FORK:+-fork="$FORK"} \
    -artifact_prefix="build-fuzz/crashes/$h-" "build-fuzz/corpus/$h" "build-fuzz/seeds/$h" \
    >"$log" 2>&1 || rc=$?
  secs=$(($(date +%s) - start))
  # (`|| true`: a grep that finds nothing must not stop the script under set -e and pipefail.)
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}' ||
    true)
  # Fork mode's parent prints no final stats: its last status line counts every job's.
  [ -n "$execs" ] || execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#' || true)
  crash="none"
  [ "$rc" -eq 0 ] || crash="**crash** ($(grep -o 'ERROR: [A-Za-z]*[^ ]* [a-z-]*\|runtime error: [^(]*\|deadly signal\|out-of-memory\|timeout' "$log" | head -1 || true))"
  printf '| %s | %s | %d min %02d s | %s | %s |\n' "$h" "$(printf "%'d" "${execs:-0}")" \
    $((secs / 60)) $((secs % 60)) "$(( ${execs:-0} / (secs > 0 ? secs : 1) ))" "$crash" | tee -a "$out"
done
