#!/usr/bin/env bash
# How long a newcomer waits for the first number (BENCHMARKS.md, "Set-up time: a first number in
# minutes"; issue 38). Each case clones this repository's committed HEAD into a temporary folder
# (no .deps, .venv, models, web/node_modules or build: everything is downloaded and built as on a
# fresh machine) and times, in the clone:
#   bare  `make demo` with an empty ccache (CCACHE_DIR a fresh folder) and empty pip and npm caches;
#   warm  a second checkout's `make demo` on the same machine: a second clone, with the ccache and
#         the pip and npm caches the bare case left (the downloads are made again, from the caches
#         where pip and npm have one; the llama.cpp sdist is fetched again with curl);
#   test  (only when asked) `make test`'s set-up, after the bare case's demo in the same clone:
#         `scripts/setup.sh` (the rest of the set-up and the build), `scripts/build-worker.sh
#         aarch64`, `scripts/fetch-test-vm.sh`, `scripts/fetch-browser.sh`; not the tests.
# `make demo` is timed as its two halves: `scripts/setup.sh demo` (wall and CPU time), then
# `make demo` (its set-up finds everything done, then the quickstart runs) up to the first line of
# the first table it prints. CPU time: user + system time of every process, summed.
# The Debian packages that set-up installs are taken as installed (apt is not timed).
# Usage: bench/setup-time.sh [bare] [warm] [test]   (default: bare warm)
#        bench/setup-time.sh warm-here   the warm case alone, against this machine's own ccache
#                                        (warm from building this checkout): a quick check
# Prints a Markdown table; removes the clones and caches it made, whether it succeeds or not.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(bare warm)
for c in "${cases[@]}"; do
  case "$c" in
    bare | warm | test | warm-here) ;;
    *) echo "usage: bench/setup-time.sh [bare] [warm] [test] | warm-here" >&2; exit 2 ;;
  esac
done
has() { [[ " ${cases[*]} " == *" $1 "* ]]; }
if has test && ! has bare; then
  echo "bench/setup-time.sh: 'test' times the set-up after the bare case's demo: add 'bare'" >&2
  exit 2
fi
if has warm && ! has bare; then
  echo "bench/setup-time.sh: 'warm' uses the ccache the bare case fills: add 'bare'" \
    "(or run 'warm-here' against this machine's own ccache)" >&2
  exit 2
fi
[ -n "$(git status --porcelain --untracked-files=no)" ] &&
  echo "note: uncommitted changes are not measured (the clones hold HEAD, $(git rev-parse --short HEAD))" >&2

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pipette-setup-time.XXXXXX")
cleanup() {
  chmod -R u+w "$tmp" 2>/dev/null || true  # Go-style read-only caches, if any
  rm -rf "$tmp"
}
trap cleanup EXIT
if ! has warm-here; then
  export CCACHE_DIR="$tmp/ccache"
  mkdir -p "$CCACHE_DIR"
fi
export PIP_CACHE_DIR="$tmp/pip-cache" npm_config_cache="$tmp/npm-cache"
TIMEFORMAT='%R %U %S'

# ccache's counters, summed: "hits misses".
ccache_counts() {
  ccache --print-stats 2>/dev/null | awk -F'\t' '
    $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" {h += $2}
    $1 == "cache_miss" {m += $2}
    END {print h + 0, m + 0}'
}

# timed OUT LOG CMD...: runs CMD, its output into LOG; OUT gets "wall user sys".
timed() {
  local out=$1 log=$2
  shift 2
  { time "$@" >"$log" 2>&1; } 2>"$out" || {
    echo "bench/setup-time.sh: '$*' failed; its last lines:" >&2
    tail -20 "$log" >&2
    exit 1
  }
}

rows=()
# demo_case NAME DIR: clones into DIR, times its `make demo`, appends a row.
demo_case() {
  local name=$1 dir=$2 before after
  git clone -q "$repo" "$dir"
  before=$(ccache_counts)
  timed "$dir.setup.time" "$dir.setup.log" "$dir/scripts/setup.sh" demo
  after=$(ccache_counts)
  # The quickstart, each line stamped when it comes: the first table's first line is the mark.
  local start first="" wall user sys
  start=$EPOCHREALTIME
  { time (cd "$dir" && make demo 2>&1 | while IFS= read -r line; do
      printf '%s %s\n' "$EPOCHREALTIME" "$line"
    done >"$dir.demo.log"); } 2>"$dir.demo.time" || {
    echo "bench/setup-time.sh: $name: make demo failed; its last lines:" >&2
    tail -20 "$dir.demo.log" >&2
    exit 1
  }
  first=$(awk '$2 ~ /^\|/ {print $1; exit}' "$dir.demo.log")
  [ -n "$first" ] || {
    echo "bench/setup-time.sh: $name: make demo printed no table; its last lines:" >&2
    tail -20 "$dir.demo.log" >&2
    exit 1
  }
  read -r wall user sys <"$dir.setup.time"
  local run_wall run_user run_sys
  read -r run_wall run_user run_sys <"$dir.demo.time"
  read -r h0 m0 <<<"$before"
  read -r h1 m1 <<<"$after"
  rows+=("$(awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v st="$start" -v f="$first" \
    -v rw="$run_wall" -v ru="$run_user" -v rs="$run_sys" -v h=$((h1 - h0)) -v m=$((m1 - m0)) '
    function mmss(x) { return sprintf("%d min %02d s", int(x / 60), int(x % 60 + 0.5)) }
    BEGIN {
      printf "| %s | %s | %s | %.0f | %s | %.0f | %d / %d |", n, mmss(w + (f - st)), mmss(w),
        u + s, mmss(rw), ru + rs, h, m
    }')")
}

if has bare; then demo_case "bare machine" "$tmp/bare"; fi
if has warm; then demo_case "second checkout (warm ccache)" "$tmp/warm"; fi
if has warm-here; then demo_case "second checkout (this machine's ccache)" "$tmp/warm"; fi
test_row=""
if has test; then
  before=$(ccache_counts)
  timed "$tmp/test.time" "$tmp/test.log" bash -c "cd '$tmp/bare' && scripts/setup.sh &&
    scripts/build-worker.sh aarch64 && scripts/fetch-test-vm.sh && scripts/fetch-browser.sh"
  read -r h0 m0 <<<"$before"
  read -r h1 m1 <<<"$(ccache_counts)"
  read -r wall user sys <"$tmp/test.time"
  test_row=$(awk -v w="$wall" -v u="$user" -v s="$sys" -v h=$((h1 - h0)) -v m=$((m1 - m0)) '
    function mmss(x) { return sprintf("%d min %02d s", int(x / 60), int(x % 60 + 0.5)) }
    BEGIN { printf "| `make test` set-up, after the demo | | %s | %.0f | | | %d / %d |", mmss(w), u + s, h, m }')
fi

echo
echo "Commit $(git rev-parse --short HEAD), $(nproc) cores, load average before: $load_before;" \
  "the Debian packages were already installed."
echo
echo "| Case | To the first table | Set-up (wall) | Set-up CPU-s | \`make demo\` after set-up (wall) | its CPU-s | ccache hits / misses (set-up) |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
[ -z "$test_row" ] || echo "$test_row"
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
