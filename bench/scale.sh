#!/usr/bin/env bash
# bench/scale.sh [build-dir] [--servers N] [--server PATH] [--batch K] [--soft-nofile L] [--idle-s S] [--http|--sse|--ws]
#
# How mcph scales with the number of stdio servers: one config of N (default 500) copies of a small
# server (default tests/fakes' fake-mcp-server), `mcph status --json` started with the soft
# RLIMIT_NOFILE at L (default 1024, the common default the CLI must raise by itself), and the local
# connect batch at K (default: mcph's own default). Prints one JSON object: wall time, peak RSS of
# mcph (/usr/bin/time -v), peak threads and descriptors of mcph (sampled from /proc every 20 ms),
# and how many servers ended connected. Then the same servers held by a long-lived host (`mcph
# shell`, every server connected before its first command) once they have been idle for
# --idle-s seconds (default 3: the stdio readers' readerIdleMs is 2 s): its threads, descriptors
# and resident memory then. The servers' own memory is not counted. --http: the N servers are
# Streamable HTTP ones, all on one hello-server --http this script starts (its loop threads retire
# after loopIdleMs, 2 s, as stdio readers do). --sse: legacy SSE ones, all on one
# server-everything in SSE mode (the npm peer in tests/peers, which scripts/setup.sh installs);
# their loop threads retire the same way, but that server sends each session a notification now
# and then, so a few are awake at any moment. --ws: WebSocket ones, all on one supergateway
# (--outputTransport ws) in front of one server-everything over stdio (both npm peers); their
# service threads retire after loopIdleMs too.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build="$1"; shift; fi
servers=500
server="$build/bin/fake-mcp-server"
batch=""
soft=1024
idle_s=3
http=0
sse=0
ws=0
while [ $# -gt 0 ]; do
  case "$1" in
    --servers) servers="$2"; shift 2 ;;
    --server) server="$2"; shift 2 ;;
    --batch) batch="$2"; shift 2 ;;
    --soft-nofile) soft="$2"; shift 2 ;;
    --idle-s) idle_s="$2"; shift 2 ;;
    --http) http=1; shift ;;
    --sse) sse=1; shift ;;
    --ws) ws=1; shift ;;
    *) echo "scale.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mcph="$build/bin/mcph"
for f in "$mcph" "$server" /usr/bin/time; do
  [ -x "$f" ] || { echo "scale.sh: missing $f (cmake --build $build --target mcph_cli mcph_transport_stdio fake-mcp-server)" >&2; exit 2; }
done
server="$(cd "$(dirname "$server")" && pwd)/$(basename "$server")"

work="$(mktemp -d)"
server_pid=""
trap 'rm -rf "$work"; [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true' EXIT
url=""
if [ "$http" = 1 ]; then
  # shellcheck source=bench/http_server.sh
  source bench/http_server.sh
  start_http_server "$build/bin/hello-server" "$work"
fi
if [ "$sse" = 1 ]; then
  everything="tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
  [ -f "$everything" ] || { echo "scale.sh: --sse needs the npm peers (bash scripts/setup.sh)" >&2; exit 2; }
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  PORT="$port" node "$everything" sse >"$work/sse-server.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do  # up to 5 s for it to listen
    grep -q "running on port" "$work/sse-server.out" 2>/dev/null && break
    sleep 0.05
  done
  url="http://127.0.0.1:$port/sse"
fi
if [ "$ws" = 1 ]; then
  everything="tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
  gateway="tests/peers/node_modules/supergateway/dist/index.js"
  [ -f "$everything" ] && [ -f "$gateway" ] || { echo "scale.sh: --ws needs the npm peers (bash scripts/setup.sh)" >&2; exit 2; }
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  node "$gateway" --stdio "node $everything stdio" --outputTransport ws --port "$port" --logLevel none \
    >"$work/ws-server.out" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 200); do  # up to 10 s for it to listen
    python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$port" \
      2>/dev/null && break
    sleep 0.05
  done
  url="ws://127.0.0.1:$port/message"  # supergateway's --messagePath
fi
python3 - "$servers" "$server" "$url" "$sse" "$ws" >"$work/servers.json" <<'EOF'
import json, sys
n, cmd, url, sse, ws = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5] == "1"
kind = "ws" if ws else "sse" if sse else "http"
one = {"type": kind, "url": url} if url else {"command": cmd}
print(json.dumps({"mcpServers": {f"s{i:04d}": one for i in range(n)}}))
EOF

env_args=(MCPH_CONFIG_HOME="$work/home")
[ -n "$batch" ] && env_args+=(MCPH_LOCAL_CONNECT_BATCH="$batch")
start=$(date +%s%N)
env "${env_args[@]}" /usr/bin/time -v -o "$work/time.txt" \
  bash -c 'ulimit -Sn "$0"; exec "$@"' "$soft" "$mcph" --strict-mcp-config --mcp-config "$work/servers.json" \
  status --json >"$work/status.json" 2>"$work/stderr.txt" &
timer=$!
peak_threads=0
peak_fds=0
pid=""
while kill -0 "$timer" 2>/dev/null; do
  [ -n "$pid" ] || pid="$(pgrep -P "$timer" | head -1 || true)"
  if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
    t="$(awk '/^Threads:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)"
    f="$( (ls "/proc/$pid/fd" 2>/dev/null || true) | wc -l)"  # the process may just have exited
    [ "${t:-0}" -gt "$peak_threads" ] && peak_threads="$t"
    [ "${f:-0}" -gt "$peak_fds" ] && peak_fds="$f"
  fi
  sleep 0.02
done
rc=0
wait "$timer" || rc=$?
end=$(date +%s%N)

# The idle host: `servers` runs once every server is connected (the shell waits for them); the
# figures are read S seconds after its output came, while the shell waits for its next line.
mkfifo "$work/script"
env "${env_args[@]}" bash -c 'ulimit -Sn "$0"; exec "$@"' "$soft" "$mcph" --strict-mcp-config \
  --mcp-config "$work/servers.json" shell <"$work/script" >"$work/shell.out" 2>"$work/shell.err" &
shell=$!
exec 3>"$work/script"
echo servers >&3
idle_threads=0 idle_fds=0 idle_rss_kb=0 idle_connected=0
for _ in $(seq 1 3000); do  # up to 60 s for every server to connect
  idle_connected="$(grep -c ' connected ' "$work/shell.out" || true)"
  [ "$idle_connected" -ge "$servers" ] && break
  kill -0 "$shell" 2>/dev/null || break
  sleep 0.02
done
sleep "$idle_s"
if [ -r "/proc/$shell/status" ]; then
  idle_threads="$(awk '/^Threads:/ {print $2}' "/proc/$shell/status")"
  idle_rss_kb="$(awk '/^VmRSS:/ {print $2}' "/proc/$shell/status")"
  idle_fds="$(ls "/proc/$shell/fd" | wc -l)"
fi
echo quit >&3
exec 3>&-
wait "$shell" || true

rss_kb="$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$work/time.txt")"
connected="$(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print(sum(1 for s in d["servers"] if s["state"] == "connected"))
except Exception:
    print(0)' "$work/status.json")"
cat <<EOF
{"servers": $servers, "connected": $connected, "exit_code": $rc, "soft_nofile_at_start": $soft, "local_connect_batch": "${batch:-default}", "wall_s": $(awk "BEGIN {printf \"%.2f\", ($end - $start) / 1e9}"), "peak_rss_mb": $(awk "BEGIN {printf \"%.1f\", ${rss_kb:-0} / 1024}"), "peak_threads": $peak_threads, "peak_fds": $peak_fds, "idle_s": $idle_s, "idle_connected": $idle_connected, "idle_threads": $idle_threads, "idle_fds": $idle_fds, "idle_rss_mb": $(awk "BEGIN {printf \"%.1f\", ${idle_rss_kb:-0} / 1024}")}
EOF
if [ "$rc" -ne 0 ] || [ "$connected" -ne "$servers" ] || [ "$idle_connected" -ne "$servers" ]; then
  echo "scale.sh: not every server connected; mcph stderr:" >&2
  head -n 20 "$work/stderr.txt" "$work/shell.err" >&2
  exit 1
fi
