#!/bin/sh
# Builds fuzz/build/slide_fuzzer with clang (libFuzzer + ASan + UBSan). Needs: apt-get install clang
# libclang-rt-14-dev (or the compiler-rt package of your clang). Usage: fuzz/build.sh [build dir]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/build}
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
nice ninja -C "$build" -j"${JOBS:-2}" slide_fuzzer
echo "$build/slide_fuzzer"
