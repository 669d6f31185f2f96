#!/usr/bin/env bash
# bench/scale.sh [build-dir] [--servers N] [--server PATH] [--batch K] [--soft-nofile L]
#
# How mcph scales with the number of stdio servers: one config of N (default 500) copies of a small
# server (default tests/fakes' fake-mcp-server), `mcph status --json` started with the soft
# RLIMIT_NOFILE at L (default 1024, the common default the CLI must raise by itself), and the local
# connect batch at K (default: mcph's own default). Prints one JSON object: wall time, peak RSS of
# mcph (/usr/bin/time -v), peak threads and descriptors of mcph (sampled from /proc every 20 ms),
# and how many servers ended connected. The servers' own memory is not counted.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build="$1"; shift; fi
servers=500
server="$build/bin/fake-mcp-server"
batch=""
soft=1024
while [ $# -gt 0 ]; do
  case "$1" in
    --servers) servers="$2"; shift 2 ;;
    --server) server="$2"; shift 2 ;;
    --batch) batch="$2"; shift 2 ;;
    --soft-nofile) soft="$2"; shift 2 ;;
    *) echo "scale.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mcph="$build/bin/mcph"
for f in "$mcph" "$server" /usr/bin/time; do
  [ -x "$f" ] || { echo "scale.sh: missing $f (cmake --build $build --target mcph_cli mcph_transport_stdio fake-mcp-server)" >&2; exit 2; }
done
server="$(cd "$(dirname "$server")" && pwd)/$(basename "$server")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$servers" "$server" >"$work/servers.json" <<'EOF'
import json, sys
n, cmd = int(sys.argv[1]), sys.argv[2]
print(json.dumps({"mcpServers": {f"s{i:04d}": {"command": cmd} for i in range(n)}}))
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

rss_kb="$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$work/time.txt")"
connected="$(python3 -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print(sum(1 for s in d["servers"] if s["state"] == "connected"))
except Exception:
    print(0)' "$work/status.json")"
cat <<EOF
{"servers": $servers, "connected": $connected, "exit_code": $rc, "soft_nofile_at_start": $soft, "local_connect_batch": "${batch:-default}", "wall_s": $(awk "BEGIN {printf \"%.2f\", ($end - $start) / 1e9}"), "peak_rss_mb": $(awk "BEGIN {printf \"%.1f\", ${rss_kb:-0} / 1024}"), "peak_threads": $peak_threads, "peak_fds": $peak_fds}
EOF
if [ "$rc" -ne 0 ] || [ "$connected" -ne "$servers" ]; then
  echo "scale.sh: not every server connected; mcph stderr:" >&2
  head -n 20 "$work/stderr.txt" >&2
  exit 1
fi
