#!/bin/sh
# Runs the slide fuzzer (built by build.sh) on a working corpus seeded from fuzz/corpus, one process, at
# the lowest CPU priority. Usage: fuzz/run.sh [seconds] [extra libFuzzer flags]
# New inputs go to fuzz/build/work, crashes to fuzz/build/artifacts (both git-ignored): copy a crash into
# fuzz/regressions/ once its bug is fixed (tests/io/test_fuzz_regressions.py replays them).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:-1800}
[ $# -gt 0 ] && shift
mkdir -p "$here/build/work" "$here/build/artifacts"
cd "$here/build"  # -jobs writes its log (fuzz-0.log) to the current directory
exec nice -n 19 ./slide_fuzzer -dict=../tiff.dict -rss_limit_mb=2048 -malloc_limit_mb=512 -max_len=65536 \
  -timeout=30 -jobs=1 -workers=1 -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix=artifacts/ "$@" work ../corpus ../regressions
