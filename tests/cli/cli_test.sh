#!/usr/bin/env bash
# End-to-end tests of the `mcph` CLI over real processes: exit codes, messages, JSON output.
# usage: cli_test.sh <mcph> <hello-server>
set -u
MCPH="$1"
HELLO="$2"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
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
expect bad-timeout 2 "invalid duration" -- "$MCPH" --timeout soon tools
expect malformed-config 2 "malformed MCP config at offset" -- "$MCPH" --mcp-config '{bad' tools
expect missing-config-file 2 "cannot read --mcp-config file" -- "$MCPH" --mcp-config "$WORK/none.json" tools
expect config-missing-command 2 "server 'x': command is required" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"args":[]} }}' tools
expect no-servers 2 "no servers configured" -- "$MCPH" tools
expect command-not-found 3 "cannot start|not found" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"command":"/nonexistent/mcp-server"}}}' tools
expect unknown-type 3 "no loaded plugin serves transport type 'carrier-pigeon'" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"type":"carrier-pigeon","url":"x"}}}' tools x
expect demo 0 "demo finished: all steps succeeded" -- "$MCPH" demo
expect demo-sum 0 "structuredContent: \{\"sum\":5\}" -- "$MCPH" demo
expect tools 0 "mcp__h__add" -- "$MCPH" --mcp-config "$HELLO_CFG" tools
expect tools-json 0 "\"originalName\": \"add\"" -- "$MCPH" --mcp-config "$HELLO_CFG" --json tools
expect call 0 "^5$" -- "$MCPH" --mcp-config "$HELLO_CFG" call mcp__h__add '{"a":2,"b":3}'
expect call-by-original-name 0 "^7$" -- "$MCPH" --mcp-config "$HELLO_CFG" call h/add '{"a":3,"b":4}'
expect call-tool-error 1 "reported an error" -- "$MCPH" --mcp-config "$HELLO_CFG" call mcp__h__add '{"a":"x","b":1}'
expect call-unknown-tool 2 "no tool named 'mcp__h__nope'" -- "$MCPH" --mcp-config "$HELLO_CFG" call mcp__h__nope
expect call-bad-args 2 "arguments must be a JSON object|malformed tool arguments" -- "$MCPH" --mcp-config "$HELLO_CFG" call mcp__h__add '[1]'
expect call-timeout 3 "timed out after 300 ms" -- "$MCPH" --mcp-config "$HELLO_CFG" --timeout 300ms call mcp__h__countdown '{"steps":3,"delayMs":400}'
expect read 0 "notes for the cli test" -- "$MCPH" --mcp-config "$HELLO_CFG" read notes://today
expect read-unknown 3 "JSON-RPC error" -- "$MCPH" --mcp-config "$HELLO_CFG" read notes://nope h
expect resources 0 "notes://today" -- "$MCPH" --mcp-config "$HELLO_CFG" resources
expect prompts 0 "review-code" -- "$MCPH" --mcp-config "$HELLO_CFG" prompts
expect prompt 0 "user: Please review the following code" -- "$MCPH" --mcp-config "$HELLO_CFG" prompt review-code '{"code":"x = 1"}'
expect status-json 0 "\"state\": \"connected\"" -- "$MCPH" --mcp-config "$HELLO_CFG" --json status
expect status-failed 0 "state\": \"failed\"" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"command":"/nonexistent/mcp-server"}}}' --json status
expect servers 0 "h  \[stdio\]  pending" -- "$MCPH" --mcp-config "$HELLO_CFG" servers
expect plugins 0 "loaded: transport-stdio" -- "$MCPH" plugins

expect login-usage 2 "usage: mcph login <server>" -- "$MCPH" login
expect login-no-auth 2 "has no auth configured" -- "$MCPH" --mcp-config "$HELLO_CFG" login h
expect oauth-needs-url 2 "needs a remote server" -- "$MCPH" --mcp-config '{"mcpServers":{"x":{"command":"c","oauth":{}}}}' tools

# A directory with a file that is not a plugin: shown as refused with the reason, never a crash.
mkdir -p "$WORK/plugins" && echo "not a library" > "$WORK/plugins/libbogus.so"
expect plugin-refused 0 "refused: not loadable" -- "$MCPH" --plugin-dir "$WORK/plugins" plugins
expect plugin-env-path 0 "libbogus.so" -- env MCPH_PLUGIN_PATH="$WORK/plugins" "$MCPH" plugins

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
