#!/usr/bin/env bash
# Cross-builds the llama.cpp worker for another architecture from the same pinned llama.cpp
# source, through ccache:
#   scripts/build-worker.sh aarch64        build-aarch64/pipette-worker-llama: static, ARMv8.2-A
#                                          (cmake/toolchains/aarch64-linux-gnu.cmake, Debian's
#                                          g++-aarch64-linux-gnu, installed if missing)
#   scripts/build-worker.sh x86_64         build-x86_64/pipette-worker-llama: static, x86-64-v3, for
#                                          x86-64 boards whose CPU or libraries differ from this
#                                          machine's (cmake/toolchains/x86_64-linux-gnu.cmake)
#   scripts/build-worker.sh android-arm64  build-android-arm64/pipette-worker-llama: the same worker
#                                          built with the Android NDK that ANDROID_NDK_HOME names
#                                          (no NDK is packaged in Debian or on PyPI; not tried here)
# Pipette stages the worker built for a device's architecture (`uname -m` there: aarch64 on a
# phone too) from build-<arch>/, or from PIPETTE_WORKERS_DIR_<ARCH> (docs/running.md "Devices",
# "Phones"). pipette-probe, the device-side memory bandwidth probe, is built beside it and staged
# with it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/versions.env
ARCH=${1:?usage: scripts/build-worker.sh aarch64|x86_64|android-arm64}
say() { printf '\033[1m[build-worker]\033[0m %s\n' "$*" >&2; }
case "$ARCH" in
  aarch64)
    PKGS=(g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
    TOOLCHAIN=(-DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/aarch64-linux-gnu.cmake") ;;
  x86_64)
    PKGS=()
    TOOLCHAIN=(-DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/x86_64-linux-gnu.cmake") ;;
  android-arm64)
    PKGS=()
    NDK=${ANDROID_NDK_HOME:-${ANDROID_NDK:-}}
    if [ -z "$NDK" ] || [ ! -f "$NDK/build/cmake/android.toolchain.cmake" ]; then
      echo "scripts/build-worker.sh: android-arm64 needs the Android NDK (r26 or later): set" \
        "ANDROID_NDK_HOME to the folder holding build/cmake/android.toolchain.cmake${NDK:+ (not in $NDK)}." \
        "The NDK comes from developer.android.com/ndk/downloads; Debian and PyPI do not carry it." \
        "The static aarch64 worker (scripts/build-worker.sh aarch64) needs no Android library" \
        "and is what Pipette stages on a phone otherwise." >&2
      exit 2
    fi
    # API 28 (Android 9): the oldest with everything the worker calls; arm64-v8a with the
    # ARMv8.2-A dot-product and half-precision extensions, as the Linux build.
    TOOLCHAIN=(-DCMAKE_TOOLCHAIN_FILE="$NDK/build/cmake/android.toolchain.cmake"
      -DANDROID_ABI=arm64-v8a -DANDROID_PLATFORM=android-28
      -DGGML_CPU_ARM_ARCH=armv8.2-a+dotprod+fp16) ;;
  *) echo "scripts/build-worker.sh: no toolchain for '$ARCH' (known: aarch64, x86_64, android-arm64)" >&2; exit 2 ;;
esac
. scripts/deb-install.sh
[ ${#PKGS[@]} -eq 0 ] || deb_install "${PKGS[@]}"
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=file_macro
SRC_ABS="$PWD/.deps/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"
OUT="build-$ARCH"
if [ ! -f "$OUT/CMakeCache.txt" ]; then
  say "configuring the $ARCH worker build ($OUT)"
  cmake -S . -B "$OUT" -G Ninja -DPIPETTE_WORKERS_ONLY=ON -DCMAKE_BUILD_TYPE=Release \
    "${TOOLCHAIN[@]}" \
    -DPIPETTE_LLAMA_SOURCE:PATH="$SRC_ABS" \
    -DPIPETTE_LLAMA_CPP_PYTHON_VERSION="$LLAMA_CPP_PYTHON_VERSION" \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
fi
say "building the $ARCH worker and pipette-probe (the memory bandwidth probe staged with it)"
cmake --build "$OUT" -j "$(nproc)" --target pipette-worker-llama pipette-probe
