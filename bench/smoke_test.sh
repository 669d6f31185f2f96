#!/usr/bin/env bash
# bench/smoke_test.sh BUILD_DIR — ctest `bench_smoke` (label bench): that the benchmark runs, never
# how fast. Runs `bench/run.sh BUILD_DIR --quick --http --scale` and fails unless it exits 0, every
# client ran ("failed clients: 0"), and every row of issue #16 and every new row is printed with
# its goal (the list below is the issue's, kept here on purpose: a row dropped from run.sh fails),
# and that both clients refuse a bad count with their usage message.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:?usage: smoke_test.sh BUILD_DIR}"

out="$(mktemp)"
err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT
status=0
bash "$here/run.sh" "$build" --quick --http --scale >"$out" 2>"$err" || status=$?
fail=0
problem() { echo "bench_smoke: $*" >&2; fail=1; }
[[ $status -eq 0 ]] || problem "run.sh exited $status"
grep -qx 'failed clients: 0' "$out" || problem "a client failed (see 'failed clients' below)"

# transport | row | goal, as the issue states them (ASCII: >= and <=).
expect_rows=(
  'stdio|sequential calls/s|>=0.9'
  'stdio|16 in flight, request_async (calls/s)|>=1'
  'stdio|16 in flight, futures (calls/s)|>=0.8'
  'stdio|1 MiB echo, payload both ways (MB/s)|>=0.85'
  'stdio|client CPU per sequential call (us)|<=1.3x'
  'stdio|client peak RSS (MB)|<=1.5x'
  'http|sequential calls/s|>=0.85'
  'http|16 in flight, futures (calls/s)|>=0.7'
  'http|1 MiB echo, payload both ways (MB/s)|>=0.85'
  'http|client CPU per sequential call (us)|<=1.5x'
  'http|client CPU per 1 MiB echo call (us)|<=2x'
  'http|connect, median (ms)|<=1.5x'
  'http|client peak RSS (MB)|<=1.5x'
  'cli|one-shot start -> 1 call -> exit, stdio (ms)|<=2x'
)
header="$(grep -m1 '^transport ' "$out" || true)"
[[ $header =~ \|\ +goal\ +\|\ +met$ ]] || problem "no goal/met columns in the table header: $header"
for want in "${expect_rows[@]}"; do
  IFS='|' read -r t row goal <<<"$want"
  # the row's line: transport and label in the first two columns, goal in the next-to-last one,
  # a met verdict (yes/no/<era> only) in the last, and a number in every client column
  line="$(awk -F' [|] ' -v t="$t" -v r="$row" '{a = $1; b = $2; sub(/ +$/, "", a); sub(/ +$/, "", b)} a == t && b == r' "$out")"
  if [[ -z $line ]]; then problem "row missing: $t / $row"; continue; fi
  IFS='|' read -ra cells <<<"$line"
  n=${#cells[@]}
  g="$(echo "${cells[n-2]}" | tr -d ' ')"
  m="$(echo "${cells[n-1]}" | sed 's/^ *//; s/ *$//')"
  [[ $g == "$goal" ]] || problem "$t / $row: goal '$g', expected '$goal'"
  [[ $m =~ ^(yes|no|2025\ only|2026\ only)$ ]] || problem "$t / $row: met '$m' is not a verdict"
  for ((i = 3; i <= 9; i++)); do
    v="$(echo "${cells[i]}" | tr -d ' ')"
    [[ $v =~ ^[0-9.]+$ ]] || problem "$t / $row: column $i is '$v', not a figure"
  done
done
# The mixed-config one-shot: the floors' and mcph's columns (3-6) have figures, the TS ones none.
mixed="$(awk -F' [|] ' '{b = $2; sub(/ +$/, "", b)} b == "one-shot, 3 remote servers also configured (ms)"' "$out")"
if [[ -z $mixed ]]; then
  problem "row missing: cli / one-shot, 3 remote servers also configured (ms)"
else
  IFS='|' read -ra cells <<<"$mixed"
  n=${#cells[@]}
  [[ "$(echo "${cells[n-2]}" | tr -d ' ')" == '<=2x' ]] || problem "mixed one-shot: goal is not <=2x"
  [[ "$(echo "${cells[n-1]}" | sed 's/^ *//; s/ *$//')" =~ ^(yes|no|2025\ only|2026\ only)$ ]] || problem "mixed one-shot: no met verdict"
  for ((i = 3; i <= 6; i++)); do
    v="$(echo "${cells[i]}" | tr -d ' ')"
    [[ $v =~ ^[0-9.]+$ ]] || problem "mixed one-shot: column $i is '$v', not a figure"
  done
fi
# mcph 2025 beside an open GET stream: the floor's and mcph 2025's columns (3 and 5) have figures.
for row in 'sequential calls/s, GET stream open' 'client CPU per sequential call, GET stream open (us)'; do
  line="$(awk -F' [|] ' -v r="$row" '{a = $1; b = $2; sub(/ +$/, "", a); sub(/ +$/, "", b)} a == "http" && b == r' "$out")"
  if [[ -z $line ]]; then problem "row missing: http / $row"; continue; fi
  IFS='|' read -ra cells <<<"$line"
  for i in 3 5; do
    v="$(echo "${cells[i]}" | tr -d ' ')"
    [[ $v =~ ^[0-9.]+$ ]] || problem "http / $row: column $i is '$v', not a figure"
  done
done
for shape in '1 server(s) x 5 tools' '1 server(s) x 500 tools' '50 server(s) x 20 tools'; do
  grep -q "^$shape " "$out" || problem "mapped-name row missing: $shape"
done
# Legacy SSE's and WebSocket's rows come where run.sh finds the npm peers (server-everything,
# supergateway), as CI's set-up has them.
scale_rows=2 scale_what="stdio, http"
if [[ -f "$here/../tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ]]; then
  scale_rows=3 scale_what="stdio, http, sse"
  if [[ -f "$here/../tests/peers/node_modules/supergateway/dist/index.js" ]]; then
    scale_rows=4 scale_what="stdio, http, sse, ws"
  fi
fi
[[ $(grep -cE '^20 +\| 20 +\|' "$out") -ge $scale_rows ]] || problem "scale rows ($scale_what) missing or not every server connected"
# The idle rows (servers | connected | RSS | threads ...), stdio, Streamable HTTP, legacy SSE,
# WebSocket: 20
# quiet servers share their plugin's idle watch thread, so the host has far fewer threads than
# servers once they are idle.
mapfile -t idle_threads < <(awk -F' [|] ' '/^the same servers held by/ {found = 1; next} found && $1 ~ /^20 +$/ {print $4 + 0; found = 0}' "$out")
if ((${#idle_threads[@]} != scale_rows)); then problem "idle scale rows: ${#idle_threads[@]} of $scale_rows ($scale_what)"
else
  for t in "${idle_threads[@]}"; do ((t < 20)) || problem "idle scale row: $t threads for 20 idle servers"; done
fi
grep -q '^load average at the start: ' "$out" || problem "no load average"

# A bad count is the usage message (exit 2) at once, not a client waiting forever for the first of
# zero requests in flight or dying of an uncaught std::stoi exception.
for client in mcph-bench bench-raw-pipe; do
  for args in "--inflight 0" "--calls abc" "--calls 16x" "--echo-bytes 0"; do
    # shellcheck disable=SC2086 # the arguments split on purpose
    timeout 10 "$build/bin/$client" $args >/dev/null 2>&1
    rc=$?
    [[ $rc -eq 2 ]] || problem "$client $args: exit $rc, expected 2 (usage)"
  done
done

if [[ $fail -ne 0 ]]; then
  echo "--- run.sh stdout" >&2; cat "$out" >&2
  echo "--- run.sh stderr (last 30 lines)" >&2; tail -30 "$err" >&2
  exit 1
fi
echo "bench_smoke: every row printed with its goal, no client failed"
