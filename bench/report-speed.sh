#!/usr/bin/env bash
# How `pipette report` scales with the store (BENCHMARKS.md, "Report speed on a large store"):
#   1. measures one real small run (bench/report-speed.yaml) into a fresh store;
#   2. copies that run's cells and samples, as they are, into new runs until the store holds
#      about SAMPLES samples (default 1,000,000): a team's months of runs. LAYOUT=cells copies
#      them into run 1 instead, as more cells of it: one run that holds every sample;
#   3. times `pipette report` of one run (the latest, and the first) in md and json, REPS times
#      each (default 5), and prints the medians, for build/pipette and for every other pipette
#      binary given (an older build: before/after side by side, on the same store), as wall and
#      CPU seconds; build/pipette also with --no-cache (every row derived from the samples).
#      A seed run by a build with the derived-results cache stores its cells' rows: the copies
#      get them too. An older pipette that cannot read the store's schema reads a copy of it
#      without the cache (schema 2): the same runs, cells and samples.
# Usage: bench/report-speed.sh [OTHER_PIPETTE ...]   (SAMPLES=, REPS= to change the sizes;
#        KEEP=DIR keeps the store in DIR and reuses it when it is there; LAYOUT=runs|cells)
# Speed depends on the machine and its load: the load average is printed with the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${SAMPLES:-1000000}
reps=${REPS:-5}
layout=${LAYOUT:-runs}
case "$layout" in
  runs) run_offset=1 idx_offset=0 ;;   # copy k: run 1 + k, its cells at their positions
  cells) run_offset=0 idx_offset=1 ;;  # copy k: run 1, its cells after those of copy k - 1
  *) echo "LAYOUT is runs or cells" >&2; exit 2 ;;
esac
binaries=(build/pipette "$@")
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP"
  tmp=$KEEP
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi
db="$tmp/big-$layout.db"

if [ ! -f "$db" ]; then
  echo "seed: build/pipette run bench/report-speed.yaml" >&2
  # Its figures are not what is timed here, so it takes a measuring lock of its own rather than
  # wait for another Pipette measuring on the machine.
  # With KEEP, a seed store already there (a finished seed run) is used again.
  if [ -z "${KEEP:-}" ] || [ ! -f "$tmp/seed.db" ]; then
    rm -f "$tmp/seed.db"*
    PIPETTE_LOCK_FILE="$tmp/seed.lock" build/pipette run bench/report-speed.yaml \
      --store "$tmp/seed.db" --no-bandwidth >/dev/null 2>&1
  fi
sqlite3 "$tmp/seed.db" ".backup '$db.part'"
seed_samples=$(sqlite3 "$db.part" "SELECT count(*) FROM samples")
max_cell=$(sqlite3 "$db.part" "SELECT max(id) FROM cells")
  n_cells=$(sqlite3 "$db.part" "SELECT max(idx) + 1 FROM cells")
copies=$(((samples + seed_samples - 1) / seed_samples - 1))
# The derived-results cache the seed run stored (schema 3 on): each copy of a cell gets its
# cell's rows, recorded as derived from the copied samples (their ids are new).
copy_derived=
if [ "$(sqlite3 "$db.part" "SELECT count(*) FROM sqlite_master WHERE name = 'derived'")" = 1 ]; then
  copy_derived="
INSERT INTO derived (cell_id, version, n_samples, max_sample_id, load_cell_id, load_n_samples,
                     load_max_sample_id, rows)
  SELECT d.cell_id + k * $max_cell, d.version, d.n_samples, 0, d.load_cell_id + k * $max_cell,
         d.load_n_samples, 0, d.rows
  FROM copies, derived d JOIN cells c ON c.id = d.cell_id WHERE c.run_id = 1 ORDER BY k, d.cell_id;
UPDATE derived SET
  max_sample_id = COALESCE((SELECT max(id) FROM samples WHERE cell_id = derived.cell_id), 0),
  load_max_sample_id = CASE WHEN load_cell_id IS NULL OR load_cell_id = cell_id THEN 0 ELSE
    COALESCE((SELECT max(id) FROM samples WHERE cell_id = derived.load_cell_id), 0) END;"
fi
echo "copying run 1 ($seed_samples samples) $copies times" >&2
sqlite3 "$db.part" <<SQL
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
BEGIN;
CREATE TEMP TABLE copies(k INTEGER PRIMARY KEY);
WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < $copies)
INSERT INTO copies SELECT k FROM n;
INSERT INTO runs (id, name, experiment_path, config_hash, config_text, pipette_version,
                  pipette_commit, environment_id, started_at, finished_at, status, n_cells,
                  controller, config_canonical, only_filter, lock, resumes)
  SELECT r.id + k, name, experiment_path, config_hash, config_text, pipette_version,
         pipette_commit, environment_id, started_at, finished_at, status, n_cells, controller,
         config_canonical, only_filter, lock, resumes
  FROM runs r, copies WHERE r.id = 1 AND $run_offset = 1 ORDER BY k;
INSERT INTO cells (id, run_id, idx, key, model_name, model_path, model_source, model_sha256,
                   model_file_size, model_info, runtime, runtime_version, runtime_build, params,
                   conditions, load_cell_id, status, error, stderr_tail, worker_pid, started_at,
                   finished_at, environment_id, superseded_by)
  SELECT c.id + k * $max_cell, run_id + k * $run_offset, idx + k * $n_cells * $idx_offset, key, model_name, model_path, model_source,
         model_sha256, model_file_size, model_info, runtime, runtime_version, runtime_build,
         params, conditions, load_cell_id + k * $max_cell, status, error, stderr_tail,
         worker_pid, started_at, finished_at, environment_id, superseded_by + k * $max_cell
  FROM cells c, copies WHERE c.run_id = 1 ORDER BY k, c.id;
INSERT INTO samples (cell_id, test, rep, warmup, raw, created_at)
  SELECT s.cell_id + k * $max_cell, test, rep, warmup, raw, created_at
  FROM copies, samples s JOIN cells c ON c.id = s.cell_id WHERE c.run_id = 1 ORDER BY k, s.id;
UPDATE runs SET n_cells = (SELECT count(*) FROM cells WHERE run_id = runs.id);
$copy_derived
COMMIT;
PRAGMA journal_mode = WAL;
SQL
mv "$db.part" "$db"
fi
runs=$(sqlite3 "$db" "SELECT count(*) FROM runs")
total=$(sqlite3 "$db" "SELECT count(*) FROM samples")
echo "store: $total samples in $runs runs, $(du -m "$db" | cut -f1) MiB; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# A pipette that cannot read this store's schema (a build from before the derived-results cache,
# schema 3) reads a copy of it without the cache, at schema 2: the same runs, cells and samples.
store_for() {
  local said
  said=$("$1" report --store "$db" --run 0 2>&1 || true)
  if [[ "$said" != *"newer than this Pipette"* ]]; then
    echo "$db"
    return
  fi
  if [ ! -f "$db.v2" ]; then
    cp "$db" "$db.v2"
    sqlite3 "$db.v2" "DROP TABLE derived; UPDATE meta SET value = '2' WHERE key = 'schema_version';"
  fi
  echo "$db.v2"
}

# Medians of REPS runs of a command (its output thrown away): wall seconds and CPU seconds
# (user + system), printed as "wall | cpu".
median() {
  local walls=() cpus=()
  for _ in $(seq "$reps"); do
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" >/dev/null
    local t
    t=$(tail -1 "$tmp/time")
    walls+=("$(echo "$t" | cut -d' ' -f1)")
    cpus+=("$(echo "$t" | awk '{printf "%.2f", $2 + $3}')")
  done
  local mid='{a[NR] = $1} END {printf "%.3f", a[int((NR + 1) / 2)]}'
  printf '%s | %s' "$(printf '%s\n' "${walls[@]}" | sort -n | awk "$mid")" \
    "$(printf '%s\n' "${cpus[@]}" | sort -n | awk "$mid")"
}

echo
echo "| pipette | report | md wall (s) | md CPU (s) | json wall (s) | json CPU (s) |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
for bin in "${binaries[@]}"; do
  name="$("$bin" --version | cut -d' ' -f1-2)"
  store=$(store_for "$bin")
  label=
  [ "$store" != "$db" ] && label=" (schema-2 copy, no cache)"
  variants=("")
  # This build: also with every row derived from the samples, as a store without a cache is.
  [ "$bin" = build/pipette ] && variants+=("--no-cache")
  for extra in "${variants[@]}"; do
    for run in $(printf '%s\n' "$runs" 1 | uniq); do
      md=$(median "$bin" report --store "$store" --run "$run" $extra)
      json=$(median "$bin" report --store "$store" --run "$run" --format json $extra)
      echo "| $name${extra:+ $extra}${label} | run $run of $runs | $md | $json |"
    done
  done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
