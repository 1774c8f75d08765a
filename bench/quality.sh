#!/usr/bin/env bash
# Quality figures of the bundled model on the shipped datasets, and how long each workload takes
# on this machine (results in BENCHMARKS.md). About 10 minutes on 2 cores: bench/quality.sh
set -euo pipefail
cd "$(dirname "$0")/.."
store=${1:-$(mktemp -d)/quality.db}
if [ ! -f "$store" ]; then
  build/pipette run bench/quality.yaml --store "$store" --no-bandwidth >/dev/null
fi
echo "## figures (run $(sqlite3 "$store" 'select max(id) from runs'), store $store)"
build/pipette report --store "$store" --format json | jq -r '
  ["test", "metric", "subset", "value", "std_error / 95% CI", "n"],
  ["---", "---", "---", "---:", "---:", "---:"],
  (.results[] | select(.test == "ppl" or .test == "kld" or .test == "mc" or .test == "gen")
   | select(.subset == "" or .subset == "en" or .subset == "zh" or (.subset | startswith("reference")))
   | [.test, .metric, .subset, (.value // "n/a" | tostring),
      (if .std_error then (.std_error | tostring)
       elif .ci_low then "[\(.ci_low * 1000 | round / 1000), \(.ci_high * 1000 | round / 1000)]"
       else "" end),
      (.n | tostring)])
  | "| " + join(" | ") + " |"'
echo
echo "## wall time per workload (first to last stored sample, seconds)"
sqlite3 "$store" "
  select '| ' || test || ' | ' ||
         (strftime('%s', max(created_at)) - strftime('%s', min(created_at))) || ' | ' ||
         count(*) || ' |'
  from samples where cell_id = (select max(id) from cells)
    and test in ('ppl', 'kld_ref', 'kld', 'mc', 'gen')
  group by test order by min(id);"
