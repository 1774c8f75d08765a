#!/usr/bin/env bash
# BENCHMARKS.md "Standard tasks": every shipped task on both bundled models at the sizes of
# bench/tasks.yaml, each accuracy with its 95% interval and its count of items, and the time each
# task took per model. Usage: bench/tasks.sh [STORE] (an existing STORE is reported, not rerun).
set -euo pipefail
cd "$(dirname "$0")/.."
store=${1:-$(mktemp -d)/tasks.db}
if [ ! -f "$store" ]; then
  build/pipette run bench/tasks.yaml --store "$store" --no-bandwidth >/dev/null
fi
run=$(sqlite3 "$store" 'select max(id) from runs')
echo "## accuracy (run $run, store $store)"
build/pipette report --store "$store" --run "$run" --format json | jq -r '
  ["model", "task", "metric", "value", "95% CI", "n"],
  ["---", "---", "---", "---:", "---:", "---:"],
  (.results[] | select((.test | startswith("task:")) and .subset == "" and .metric == "acc")
   | [.model, (.test | ltrimstr("task:")), "acc",
      (.value * 1000 | round / 10 | tostring) + "%",
      "[\(.ci_low * 1000 | round / 10), \(.ci_high * 1000 | round / 10)]", (.n | tostring)])
  | "| " + join(" | ") + " |"'
echo
echo "## seconds per task (first to last stored item) and items"
sqlite3 "$store" "
  select '| ' || c.key || ' | ' || substr(s.test, 6) || ' | ' ||
         (strftime('%s', max(s.created_at)) - strftime('%s', min(s.created_at))) || ' | ' ||
         count(*) || ' |'
  from samples s join cells c on c.id = s.cell_id
  where c.run_id = $run and s.test like 'task:%'
  group by c.id, s.test order by c.id, min(s.id);"
