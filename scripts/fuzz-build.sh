#!/usr/bin/env bash
# Configures and builds the libFuzzer harnesses (fuzz/README.md) in build-fuzz: Debian's clang 14
# and libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer, through ccache. Builds only the
# libraries the harnesses test and the unit tests of those (no llama.cpp, no workers, no CLI).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m[fuzz-build]\033[0m %s\n' "$*" >&2; }
. scripts/deb-install.sh
deb_install clang-14 libfuzzer-14-dev ccache cmake ninja-build libgtest-dev "${CORE_LIB_PACKAGES[@]}"
[ -d web/node_modules ] || scripts/fetch-web.sh  # the core's HTML report inlines them

export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_SLOPPINESS=file_macro
if [ ! -f build-fuzz/build.ninja ]; then  # a configure that failed leaves no build.ninja
  say "configuring build-fuzz (clang-14, ASan, UBSan, libFuzzer)"
  # -O1 and line tables, as OSS-Fuzz builds: fast to compile, and asserts stay on (no NDEBUG).
  cmake -S . -B build-fuzz -G Ninja -DPIPETTE_FUZZ=ON -DCMAKE_BUILD_TYPE=Fuzz \
    -DCMAKE_C_FLAGS_FUZZ="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only" \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
fi
cmake --build build-fuzz --target pipette_fuzzers -j "${JOBS:-$(nproc)}"
