# shellcheck shell=bash
# bench/http_server.sh — sourced by the bench scripts that need hello-server over Streamable HTTP.
#
# start_http_server SERVER WORKDIR [ARG...]: starts `SERVER --http --port 0 ARG...` (a free loopback port) in the
# background, sets `server_pid` to its pid at once (so the caller's EXIT trap can kill it) and
# `url` to the URL it prints. Waits up to 5 s for that line; without it the script exits 1 with
# what the server printed.
start_http_server() {
  local server="$1" work="$2" _
  "$server" --http --port 0 "${@:3}" >"$work/http-server.out" 2>"$work/http-server.err" &
  # shellcheck disable=SC2034 # server_pid and url are the caller's (its EXIT trap, its requests)
  server_pid=$!
  url=""
  for _ in $(seq 1 100); do
    # (the backgrounded server may not have created its output file yet: not an error)
    url="$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$work/http-server.out" 2>/dev/null || true)"
    [[ -n $url ]] && return 0
    sleep 0.05
  done
  echo "$(basename "$0"): hello-server --http did not print its URL: $(cat "$work/http-server.out" "$work/http-server.err" 2>/dev/null)" >&2
  exit 1
}
