#!/usr/bin/env bash
# build.sh <build-dir> [cmake args...]: configure (once) and build everything in <build-dir>.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$1"; shift
jobs="$(nproc 2>/dev/null || echo 2)"
cmake -S . -B "$dir" "$@" >/dev/null
cmake --build "$dir" -j"$jobs"
