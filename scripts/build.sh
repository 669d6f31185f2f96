#!/usr/bin/env bash
# build.sh <build-dir> [cmake args...]: configure (once) and build everything in <build-dir>.
# Warnings are errors in every build the project makes itself (dev and CI); MCPH_WERROR is off by
# default only for consumers and packagers.
# A new build directory gets the Ninja generator (scripts/setup.sh installs it): it keeps both
# cores busy across targets where CMake's recursive Makefiles wait at each target's dependency
# scan; a directory configured earlier keeps the generator it was made with.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$1"; shift
jobs="$(nproc 2>/dev/null || echo 2)"
generator=()
[ -f "$dir/CMakeCache.txt" ] || generator=(-G Ninja)
cmake -S . -B "$dir" "${generator[@]}" -DMCPH_WERROR=ON "$@" >/dev/null
cmake --build "$dir" -j"$jobs"
