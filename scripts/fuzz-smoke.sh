#!/usr/bin/env bash
# Runs every fuzz harness (fuzz/README.md) for a short while over its seeds: any crash, sanitizer
# report, leak, timeout or memory blow-up fails. FUZZ_SECONDS (default 15) per harness; the corpus
# each grows is kept in build-fuzz/corpus/<harness>, a crash's input in build-fuzz/crashes/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/fuzz-lib.sh
scripts/fuzz-build.sh
scripts/fuzz-seeds.sh 2>/dev/null
seconds=${FUZZ_SECONDS:-15}
failed=()
for h in $(fuzz_harnesses); do
  mkdir -p "build-fuzz/corpus/$h" build-fuzz/crashes
  # shellcheck disable=SC2046
  if ! "$FUZZ_BIN/${h}_fuzz" "${FUZZ_OPTS[@]}" $(fuzz_dict "$h") -max_total_time="$seconds" \
    -artifact_prefix="build-fuzz/crashes/$h-" "build-fuzz/corpus/$h" "build-fuzz/seeds/$h" \
    >"build-fuzz/$h.smoke.log" 2>&1; then
    echo "fuzz-smoke: $h FAILED (build-fuzz/$h.smoke.log):" >&2
    grep -E "ERROR|SUMMARY|runtime error|Test unit written" "build-fuzz/$h.smoke.log" | head -5 >&2
    failed+=("$h")
  else
    printf 'fuzz-smoke: %-18s ok  %s\n' "$h" \
      "$(grep -o 'stat::number_of_executed_units: [0-9]*' "build-fuzz/$h.smoke.log" | awk '{print $2 " execs"}')"
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz-smoke: crashes in: ${failed[*]}" >&2; exit 1; }
