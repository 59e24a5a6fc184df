#!/bin/bash
# Runs the slide fuzzer (built by build.sh) until it has used CPU_SECONDS of CPU time (default 1860 = 31
# CPU-minutes), as one process (libFuzzer's default, the same as -jobs=1 -workers=1) at the lowest CPU
# priority, under /usr/bin/time -v. On a shared machine the wall time is longer than the CPU time, so the
# budget is counted in CPU time: a watcher sends SIGINT (libFuzzer then prints its final stats) once the
# process has used it. Usage: fuzz/run.sh [CPU_SECONDS] [extra libFuzzer flags]
# New inputs go to fuzz/build/work, crashes to fuzz/build/artifacts (both git-ignored); the log is
# fuzz/build/run.log. Copy a crash into fuzz/regressions/ once its bug is fixed
# (tests/io/test_fuzz_regressions.py replays them).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cpu_budget=${1:-1860}
[ $# -gt 0 ] && shift
mkdir -p "$here/build/work" "$here/build/artifacts"
cd "$here/build"
cmd=(nice -n 19 /usr/bin/time -v ./slide_fuzzer -dict=../tiff.dict -rss_limit_mb=2048 -malloc_limit_mb=512
     -max_len=65536 -timeout=30 -max_total_time=$((cpu_budget * 6)) -print_final_stats=1
     -artifact_prefix=artifacts/ "$@" work ../corpus ../regressions)
echo "${cmd[*]}" > run.log
"${cmd[@]}" >> run.log 2>&1 &
timer=$!
sleep 2
fuzzer=$(pgrep -P "$timer" slide_fuzzer || true)
ticks=$(getconf CLK_TCK)
while [ -n "$fuzzer" ] && kill -0 "$fuzzer" 2>/dev/null; do
  read -r -a stat < "/proc/$fuzzer/stat" || break
  used=$(( (stat[13] + stat[14]) / ticks ))  # utime + stime
  if [ "$used" -ge "$cpu_budget" ]; then kill -INT "$fuzzer"; break; fi
  sleep 10
done
wait "$timer" || true
tail -n 40 run.log
