#!/usr/bin/env bash
# Sets everything up on a fresh machine: system packages, the pinned runtime (llama.cpp through
# llama-cpp-python, built from source into .venv), the bundled model, and the build.
# Safe to run again: each step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/versions.env

say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

# 1. System packages (Debian): compilers, CMake, and the libraries Pipette links.
DEB_PACKAGES=(g++ cmake ninja-build make git python3-venv unzip libyaml-cpp-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libsqlite3-dev sqlite3 libssl-dev libgtest-dev
  libgmock-dev clang-format jq bc)
missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 2. The llama.cpp runtime, pinned, built from source by pip into .venv.
PY=${PYTHON:-python3}
if ! .venv/bin/python -c "import importlib.metadata as m, sys; \
    sys.exit(m.version('llama_cpp_python') != '$LLAMA_CPP_PYTHON_VERSION')" 2>/dev/null; then
  say "building llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION into .venv (first time: ~6 min on 2 cores)"
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  CMAKE_ARGS="-DLLAVA_BUILD=OFF" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
    PIP_CONSTRAINT="$PWD/scripts/pip-constraints.txt" \
    .venv/bin/pip install --quiet --no-deps --no-binary llama-cpp-python \
    "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION"
fi

# 3. The bundled model.
scripts/fetch-models.sh

# 4. Build Pipette against that runtime.
PREFIX=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['platlib'])")
if [ ! -f build/CMakeCache.txt ] || ! grep -q "PIPETTE_LLAMA_PREFIX:PATH=$PREFIX" build/CMakeCache.txt; then
  say "configuring the build"
  cmake -S . -B build -G Ninja -DPIPETTE_LLAMA_PREFIX:PATH="$PREFIX" >/dev/null
fi
say "building"
cmake --build build -j "$(nproc)"
