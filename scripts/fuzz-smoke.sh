#!/usr/bin/env bash
# Runs every fuzz harness (fuzz/README.md) for a short while over its seeds, then the unit tests of
# what they fuzz under the same sanitizers: any crash, sanitizer report, leak, timeout, memory
# blow-up or failed test fails. FUZZ_SECONDS (default 15) per harness; the corpus
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
# The unit tests of what the harnesses fuzz, under the same sanitizers (fuzz/CMakeLists.txt).
if "$FUZZ_BIN/pipette_sanitized_tests" --gtest_brief=1 >build-fuzz/sanitized-tests.log 2>&1; then
  echo "fuzz-smoke: unit tests under ASan+UBSan ok ($(grep -o '[0-9]* tests\? from' \
    build-fuzz/sanitized-tests.log | tail -1 | cut -d' ' -f1) tests)"
else
  echo "fuzz-smoke: unit tests under ASan+UBSan FAILED (build-fuzz/sanitized-tests.log):" >&2
  grep -E "FAILED|ERROR|SUMMARY|runtime error" build-fuzz/sanitized-tests.log | head -8 >&2
  failed+=(pipette_sanitized_tests)
fi
[ ${#failed[@]} -eq 0 ] || { echo "fuzz-smoke: failed: ${failed[*]}" >&2; exit 1; }
