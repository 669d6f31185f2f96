#!/usr/bin/env bash
# README command 1: install what is missing, build, and run `mcph demo` (embedded default config).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build -DCMAKE_BUILD_TYPE=Release
exec build/bin/mcph demo
