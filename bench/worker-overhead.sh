#!/usr/bin/env bash
# A Python runtime worker's own per-call overhead (BENCHMARKS.md): medians of the protocol round
# trip of a trivial op (`memory`), of a tg step as the worker times it, and of the bare run of
# the same step through the runtime's backend (bench/worker_overhead.py prints the raw samples;
# the medians are taken here). The step's overhead is the worker's median minus the bare one,
# printed with their ratio.
# Usage: bench/worker-overhead.sh RUNTIME [MODEL_FOLDER]   (RUNTIME: onnxruntime, openvino or
#        mnn; a converted model folder, an MNN one for mnn; default for onnxruntime and openvino
#        the unit tests' fake model, built in a temporary folder; THREADS= (default 1), REPS=
#        (default 10 tg requests of 32 steps, 200 round trips), PIPETTE_PYTHON= the venv's
#        interpreter, default .venv/bin/python; run on a quiet machine)
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PIPETTE_PYTHON:-.venv/bin/python}
threads=${THREADS:-1}
reps=${REPS:-10}
runtime=${1:?usage: bench/worker-overhead.sh RUNTIME [MODEL_FOLDER]}
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
model=${1:-}
if [ -z "$model" ]; then
  [ "$runtime" != mnn ] || { echo "mnn needs an MNN model folder" >&2; exit 2; }
  model="$tmp/fake-model"
  PYTHONPATH=workers/python "$py" -B -c \
    "import sys; from pipette_decoder import fake_model_fixture as f; f.write_fake_model(sys.argv[1])" "$model"
  echo "model: the unit tests' fake model (workers/python/pipette_decoder/fake_model_fixture.py)"
else
  echo "model: $model"
fi
echo "runtime: $runtime; threads: $threads; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
PYTHONPATH="workers/$runtime:workers/python" "$py" -B bench/worker_overhead.py "$runtime" \
  "$py -B workers/$runtime/worker.py" "$model" "$threads" "$reps" >"$tmp/samples"
median() {
  awk -v w="$1" '$1 == w {print $2}' "$tmp/samples" | sort -n |
    awk '{a[NR] = $1} END {printf "%.1f %d", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) / 1000, NR}'
}
for what in round_trip_ns worker_step_ns bare_run_ns; do
  read -r m n <<<"$(median "$what")"
  printf "%-15s median %9.1f us  (n=%d)\n" "$what" "$m" "$n"
  eval "m_$what=$m"
done
awk -v w="$m_worker_step_ns" -v b="$m_bare_run_ns" \
  'BEGIN {printf "step overhead   %9.1f us  (worker / bare %.4f)\n", w - b, w / b}'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
