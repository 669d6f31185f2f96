#!/usr/bin/env bash
# bench/instructions_test.sh BUILD_DIR — ctest `bench_instructions` (label bench): that
# bench/instructions.sh runs and prints, for stdio and HTTP in both eras, a positive count of
# instructions per call over the calls it saw; and that it refuses a bad option with its usage.
# Asserts no figure: a count is compared between builds by a person, not by a test.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:?usage: instructions_test.sh BUILD_DIR}"
fail=0
problem() { echo "bench_instructions: $*" >&2; fail=1; }

out="$(bash "$here/instructions.sh" "$build" --calls 20 2>&1)" || problem "instructions.sh exited $?"
for transport in stdio http; do
  for era in legacy modern; do
    line="$(awk -v t="$transport" -v e="$era" '$1 == t && $2 == e' <<<"$out")"
    [[ $line =~ ^$transport\ +$era\ +[1-9][0-9]*\ +[1-9][0-9]*$ ]] || problem "no count for $transport $era: '$line'"
  done
done
bash "$here/instructions.sh" "$build" --calls 0 >/dev/null 2>&1
[[ $? -eq 2 ]] || problem "--calls 0 was not refused with the usage status 2"

if [[ $fail -ne 0 ]]; then
  echo "--- instructions.sh output" >&2; echo "$out" >&2
  exit 1
fi
echo "bench_instructions: a count per call for every transport and era"
