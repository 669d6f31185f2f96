#!/usr/bin/env bash
# README command 2: install what is missing, build, and run every test — once in a normal build
# (build/), once under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/) and once under
# ThreadSanitizer (build-tsan/; TSan and ASan cannot share a process) — then fuzz each parser of
# untrusted input for a bounded time (build-fuzz/, $FUZZ_SECONDS per target, 10 s, one target per
# core at a time). CI's budget is 45 minutes; on a slow machine (process start-up and page faults
# several times dearer) the run once took 57. What keeps it short: Ninja and line-tables-only debug
# info in the sanitizer builds (scripts/build.sh, CMakeLists.txt: 17 % off the ASan build), how
# their binaries link (CMakeLists.txt) and unit-test cases sharing a process (cmake/MCPHTests.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

jobs="$(nproc 2>/dev/null || echo 2)"
status=0

# stage <title>: a heading with the time since the start, so a slow stage shows in CI's log.
# The stages run one after another: running the next stage's build beside a stage's tests, at idle
# CPU priority (SCHED_IDLE), was tried and measured here: the tests then took 54 % (Release) and
# 58 % (ASan) longer, eating what the build gained; the whole run came out ~1 minute shorter at
# the cost of every timing margin in the suite.
stage() { echo "== $1 (at ${SECONDS} s) =="; }
# Tests never touch the developer's own keyring: credentials go to the files the tests create.
# The keyring tests start their own gnome-keyring-daemon in a private dbus-run-session.
export MCPH_SECRET_STORE=file
unset DBUS_SESSION_BUS_ADDRESS

stage "build (Release, -Werror)"
bash scripts/build.sh build -DCMAKE_BUILD_TYPE=Release
stage "tests"
# One test more than cores in the normal build: a fifth of its time the cores sat idle (tests
# waiting on servers, peers and timers), and its tests' timing margins are sized for the sanitizer
# builds, which run them several times slower on -j$jobs. The sanitizer stages stay at -j$jobs.
(cd build && ctest --output-on-failure -j"$((jobs + 1))" --timeout 300) || status=1

stage "build (ASan + UBSan)"
bash scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DMCPH_SANITIZE=ON
stage "tests under ASan + UBSan"
# detect_leaks: every leak is a failure; halt_on_error: the first report fails the test.
# intercept_tls_get_addr=0: LeakSanitizer's dynamic-TLS tracking misreads glibc ≥ 2.25's TLS
# block as a glibc 2.19 one whenever the block happens to sit at a certain page offset (its
# heuristic is `tls_beg % 4096 == sizeof(header)`), then scans an illegal range and its tracer
# dies with SIGSEGV after the test passed (google/sanitizers#1322; seen here at exit of a test
# that dlopens the auth-oauth plugin). Without the interception the leak check still scans every
# thread's stack, static TLS and the heap.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1:intercept_tls_get_addr=0 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j"$jobs" --timeout 600) || status=1

stage "build (ThreadSanitizer)"
bash scripts/build.sh build-tsan -DCMAKE_BUILD_TYPE=Debug -DMCPH_TSAN=ON
stage "tests under ThreadSanitizer"
# halt_on_error: the first race fails the process; second_deadlock_stack: both stacks of a
# lock-order inversion. log_path: the processes a test starts (mcph, fake servers, plugins in them)
# are instrumented too and their stderr is often the test's to read, so every report goes to a
# file in build-tsan/tsan-reports/ and any file there fails the stage. scripts/tsan.supp lists
# third-party code only (each entry says why), never ours.
rm -rf build-tsan/tsan-reports && mkdir -p build-tsan/tsan-reports
(cd build-tsan && TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/../scripts/tsan.supp:log_path=$PWD/tsan-reports/report" \
   ctest --output-on-failure -j"$jobs" --timeout 600) || status=1
if compgen -G "build-tsan/tsan-reports/report.*" >/dev/null; then
  for report in build-tsan/tsan-reports/report.*; do echo "--- $report"; cat "$report"; done
  echo "ThreadSanitizer reported the races above" >&2
  status=1
fi

stage "fuzz (libFuzzer + ASan + UBSan, ${FUZZ_SECONDS:-10} s per target)"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-10}" || status=1

stage "done (exit $status)"
exit $status
