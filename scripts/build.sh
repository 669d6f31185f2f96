#!/usr/bin/env bash
# build.sh <build-dir> [cmake args...]: configure (once) and build everything in <build-dir>.
# Warnings are errors in every build the project makes itself (dev and CI); MCPH_WERROR is off by
# default only for consumers and packagers.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$1"; shift
jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S . -B "$dir" -DMCPH_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j"$jobs"
