#!/bin/sh
# The conformance suite's ONNX model (a ctest fixture, tests/conformance/CMakeLists.txt): the
# bundled SmolLM2 GGUF converted by Pipette's converter (converters/onnx) into OUT, once; an OUT
# that holds a model converted by this version of the converter is kept, one made by another
# version is made again (as the controller's cache does). With `mnn`, SRC is that ONNX folder and
# OUT its MNN
# conversion. The converter writes a temporary folder that is renamed to OUT when complete, so a
# failed conversion leaves nothing at OUT.
# Usage: convert-test-model.sh PYTHON CONVERTER_DIR GGUF OUT
#        convert-test-model.sh PYTHON CONVERTER_DIR ONNX_FOLDER OUT mnn
set -eu
python=$1 converter=$2 src=$3 out=$4 to=${5:-onnx}
if [ ! -d "$converter/pipette_convert" ]; then
  echo "convert-test-model: the converter $converter/pipette_convert is missing" >&2
  exit 1
fi
if [ -f "$out/pipette-model.json" ]; then
  want=$(PYTHONPATH="$converter" "$python" -B -m pipette_convert version |
    "$python" -B -c 'import json, sys; print(json.load(sys.stdin)["version"])')
  have=$("$python" -B -c 'import json, sys; print(json.load(open(sys.argv[1]))["converter"]["version"])' \
    "$out/pipette-model.json" 2>/dev/null || true)
  [ "$want" = "$have" ] && exit 0
  rm -rf "$out"
fi
mkdir -p "$(dirname "$out")"
tmp="$out.partial-$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
if [ "$to" = mnn ]; then
  PYTHONPATH="$converter" "$python" -B -m pipette_convert mnn --onnx "$src" --out "$tmp" >/dev/null
else
  PYTHONPATH="$converter" "$python" -B -m pipette_convert gguf --gguf "$src" --out "$tmp" \
    --dtype float32 >/dev/null
fi
mv "$tmp" "$out"
