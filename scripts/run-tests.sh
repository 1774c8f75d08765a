#!/usr/bin/env bash
# Runs every test (ctest: unit, end-to-end, lint) with a temporary folder of its own, and fails
# when the tests leave anything in it: a test removes its files whether it passes or fails.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pipette-tests.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
rc=0
(cd build && TMPDIR="$tmp" ctest --output-on-failure -j 2) || rc=$?
left=$(find "$tmp" -mindepth 1 -maxdepth 1 | sort)
if [ -n "$left" ]; then
  echo "error: the tests left files in the temporary folder ($(du -sh "$tmp" | cut -f1)):" >&2
  printf '  %s\n' $left >&2
  rc=1
fi
echo "tests took $(( $(date +%s) - start ))s" >&2
exit $rc
