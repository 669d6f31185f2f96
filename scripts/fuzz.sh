#!/usr/bin/env bash
# fuzz.sh [seconds]: build the libFuzzer targets (fuzz/, clang + ASan + UBSan) in build-fuzz/ and run
# each for a bounded time, starting from its seed corpus fuzz/corpus/<name>/. Fails on the first
# target that crashes, leaks, times out or runs out of memory, and prints the input that did it.
# Seconds per target: the argument, else $FUZZ_SECONDS, else 20.
#
# Adding a target: fuzz/<name>_fuzz.cpp, one mcph_add_fuzzer(<name> ...) line in fuzz/CMakeLists.txt,
# seeds in fuzz/corpus/<name>/. Every fuzz/*_fuzz.cpp is run; one without its CMake line fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-${FUZZ_SECONDS:-20}}"
dir=build-fuzz
jobs="$(nproc 2>/dev/null || echo 2)"

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
generator=()
[ -f "$dir/CMakeCache.txt" ] || generator=(-G Ninja)
cmake -S . -B "$dir" "${generator[@]}" -DMCPH_FUZZ=ON -DMCPH_WERROR=ON -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" >/dev/null
cmake --build "$dir" -j"$jobs"

# UBSan: every report is a finding, except the third-party false alarms listed in fuzz/ubsan.supp.
export UBSAN_OPTIONS="suppressions=$PWD/fuzz/ubsan.supp:halt_on_error=1:print_stacktrace=1"

# One fuzz target: its summary line on success; on a finding, the log's tail and the inputs that
# did it (on stderr), and a non-zero status.
run_target() {
  local name="$1" bin="$2" work="$dir/runs/$1"
  rm -rf "$work"
  mkdir -p "$work/corpus" "fuzz/corpus/$name"
  # New inputs go to a scratch corpus (the first directory); the seeds in the tree are read only.
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: a parser must not need 2 GB;
  # -max_len 64 KiB: long enough for deep nesting and long lines, short enough to run fast.
  # ulimit -s 2048: a smaller stack, closer to a transport thread's, so deep recursion shows.
  if ! (ulimit -s 2048 && "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
          -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "fuzz/corpus/$name" \
          >"$work/log" 2>&1); then
    tail -n 60 "$work/log" >&2
    for crash in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$work"/slow-unit-*; do
      [ -e "$crash" ] || continue
      echo "fuzz: $name FAILED on input $crash (reproduce: $bin $crash)" >&2
    done
    return 1
  fi
  echo "== fuzz $name (${seconds}s): $(grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|^Done ' "$work/log" | tr '\n' ' ')"
}

# The targets run side by side, one per core: each libFuzzer process is single-threaded, so the
# stage takes (targets / cores) x seconds instead of targets x seconds, each target fuzzed as long.
status=0
running=0
for src in fuzz/*_fuzz.cpp; do
  name="$(basename "$src" _fuzz.cpp)"
  bin="$dir/bin/${name}_fuzz"
  if [ ! -x "$bin" ] && grep -qx "$name" "$dir/fuzz-skipped.txt" 2>/dev/null; then
    echo "== fuzz $name: skipped (the parser's sources are not in this tree) =="
    continue
  fi
  if [ ! -x "$bin" ]; then
    echo "fuzz: $name: $bin was not built (is its mcph_add_fuzzer line in fuzz/CMakeLists.txt?)" >&2
    status=1
    continue
  fi
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  run_target "$name" "$bin" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
[ $status -eq 0 ] && echo "fuzz: all targets ran ${seconds}s without a finding"
exit $status
