#!/usr/bin/env bash
# bench/instructions.sh — the client's user-space instructions per sequential tool call, counted by
# Valgrind's callgrind: exact enough (within ~1% from run to run) to show a change of a few percent,
# where timings on a shared VM move ±30% (bench/ab.sh). Counts what runs inside
# ClientSession::call_tool on the calling thread — serialising, the transport plugin, parsing, the
# output-schema check — and neither the kernel's share (system calls, wake-ups) nor the server.
# mcph-bench's sequential and mapped-name phases (--calls each) call it; the total is divided by
# the calls callgrind saw. stdio and Streamable HTTP, both eras, against the NEW build's
# hello-server. With BASE_BUILD, the same for it and new/base. Builds nothing.
#
# usage: bench/instructions.sh BUILD [BASE_BUILD] [--calls N]
#   BUILD, BASE_BUILD  CMake build directories with mcph-bench, hello-server and the stdio/http plugins
#   --calls N          sequential calls per phase (default 1000; each run also makes 50 warm-up calls)
set -euo pipefail

[[ $# -ge 1 ]] || { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
new="$(cd "$1" && pwd)"; shift
base=""
calls=1000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --calls) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -gt 0 ]] || { echo "instructions.sh: --calls needs a positive number" >&2; exit 2; }
             calls="$2"; shift ;;
    -*) echo "instructions.sh: unknown option $1" >&2; exit 2 ;;
    *) [[ -z $base ]] || { echo "instructions.sh: one BASE_BUILD at most" >&2; exit 2; }; base="$(cd "$1" && pwd)" ;;
  esac
  shift
done
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
for b in "$new" ${base:+"$base"}; do
  [[ -x $b/bin/mcph-bench ]] || { echo "instructions.sh: no $b/bin/mcph-bench (cmake --build $b --target mcph-bench mcph_transport_stdio mcph_transport_http)" >&2; exit 1; }
done
server="$new/bin/hello-server"
[[ -x $server ]] || { echo "instructions.sh: no $server" >&2; exit 1; }

work="$(mktemp -d)"
server_pid=""
trap '[[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/http_server.sh"
start_http_server "$server" "$work"

# per_call OUT: instructions collected / calls of ClientSession::call_tool, from callgrind's file
# (calls are the "calls=" lines under each cfn= naming that function, by name or by its number).
per_call() {
  awk '
    /^(summary|totals):/ { total = $2 }
    /^c?fn=\([0-9]+\) mcph::ClientSession::call_tool\(/ { match($0, /\([0-9]+\)/); id = substr($0, RSTART, RLENGTH) }
    /^cfn=/ { match($0, /\([0-9]+\)/); pending = (id != "" && substr($0, RSTART, RLENGTH) == id); next }
    /^calls=/ { if (pending) { split($0, f, /[= ]/); calls += f[2] } pending = 0; next }
    END { if (calls > 0) printf "%.0f %d\n", total / calls, calls; else print "- 0" }
  ' "$1"
}

measure() {  # measure DIR TRANSPORT ERA -> "instructions-per-call calls"
  local dir="$1" transport="$2" era="$3" out="$work/cg.out"
  local -a peer=(--server "$server")
  [[ $transport == http ]] && peer=(--http "$url")
  valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='mcph::ClientSession::call_tool(*' \
    "$dir/bin/mcph-bench" "${peer[@]}" --era "$era" --calls "$calls" --warmup 50 --connects 1 --echo-calls 0 \
    --inflight 2 > /dev/null 2> "$work/valgrind.err" || { cat "$work/valgrind.err" >&2; exit 1; }
  per_call "$out"
}

printf '%-10s %-7s %14s' transport era "new (instr)"
[[ -n $base ]] && printf ' %14s %9s' "base (instr)" new/base
printf ' %7s\n' calls
for transport in stdio http; do
  for era in legacy modern; do
    read -r n_per n_calls < <(measure "$new" "$transport" "$era")
    printf '%-10s %-7s %14s' "$transport" "$era" "$n_per"
    if [[ -n $base ]]; then
      read -r b_per _ < <(measure "$base" "$transport" "$era")
      printf ' %14s %9s' "$b_per" "$(awk -v n="$n_per" -v b="$b_per" 'BEGIN { printf (b > 0 ? "%.3f" : "-"), n / b }')"
    fi
    printf ' %7s\n' "$n_calls"
  done
done
