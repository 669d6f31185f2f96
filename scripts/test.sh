#!/usr/bin/env bash
# README command 2: install what is missing, build, and run every test — once in a normal build
# (build/) and once under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/) — then fuzz
# each parser of untrusted input for a bounded time (build-fuzz/, $FUZZ_SECONDS per target, 20 s).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

jobs="$(nproc 2>/dev/null || echo 2)"
status=0

echo "== build (Release, -Werror) =="
bash scripts/build.sh build -DCMAKE_BUILD_TYPE=Release
echo "== tests =="
(cd build && ctest --output-on-failure -j"$jobs" --timeout 300) || status=1

echo "== build (ASan + UBSan) =="
bash scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug -DMCPH_SANITIZE=ON
echo "== tests under ASan + UBSan =="
# detect_leaks: every leak is a failure; halt_on_error: the first report fails the test.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j"$jobs" --timeout 600) || status=1

echo "== fuzz (libFuzzer + ASan + UBSan, ${FUZZ_SECONDS:-20} s per target) =="
bash scripts/fuzz.sh "${FUZZ_SECONDS:-20}" || status=1

exit $status
