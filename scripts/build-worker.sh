#!/usr/bin/env bash
# Cross-builds the llama.cpp worker for another architecture from the same pinned llama.cpp
# source: scripts/build-worker.sh aarch64 makes build-aarch64/pipette-worker-llama (static,
# ARMv8.2-A, cmake/toolchains/aarch64-linux-gnu.cmake) through ccache. Pipette stages it on a
# device whose architecture is aarch64 (docs/devices.md). Installs the cross compiler if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/versions.env
ARCH=${1:?usage: scripts/build-worker.sh aarch64}
say() { printf '\033[1m[build-worker]\033[0m %s\n' "$*" >&2; }
case "$ARCH" in
  aarch64) PKGS=(g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user) ;;
  *) echo "scripts/build-worker.sh: no toolchain for '$ARCH' (known: aarch64)" >&2; exit 2 ;;
esac
. scripts/deb-install.sh
deb_install "${PKGS[@]}"
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=file_macro
SRC_ABS="$PWD/.deps/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"
OUT="build-$ARCH"
if [ ! -f "$OUT/CMakeCache.txt" ]; then
  say "configuring the $ARCH worker build ($OUT)"
  cmake -S . -B "$OUT" -G Ninja -DPIPETTE_WORKERS_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/$ARCH-linux-gnu.cmake" \
    -DPIPETTE_LLAMA_SOURCE:PATH="$SRC_ABS" \
    -DPIPETTE_LLAMA_CPP_PYTHON_VERSION="$LLAMA_CPP_PYTHON_VERSION" \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
fi
say "building the $ARCH worker"
cmake --build "$OUT" -j "$(nproc)" --target pipette-worker-llama
