#!/usr/bin/env bash
# `mcph completion bash|zsh|fish` and `mcph man`, from the real binary: each script parses in its
# shell (zsh and fish only where installed: said, not failed), the bash script sourced completes
# commands, a command's options, option values, server names from the config (nothing connected)
# and `server/` for call; the man page renders with groff without a warning and has every command.
# usage: completion_man_test.sh <mcph>
set -u
MCPH=$1
fail=0
check() {  # check <what> <expected> <actual>
    if [ "$2" == "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected '$2', got '$3'"; fail=1; fi
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export MCPH_CONFIG_HOME="$T/config-home" MCPH_MANAGED_DIR="$T/managed" HOME="$T/home"
mkdir -p "$HOME"

"$MCPH" completion bash > "$T/mcph.bash" || { echo "FAIL: completion bash exits $?"; fail=1; }
bash -n "$T/mcph.bash" && echo "ok: bash -n" || { echo "FAIL: bash -n"; fail=1; }
"$MCPH" completion zsh > "$T/_mcph" || { echo "FAIL: completion zsh"; fail=1; }
# zsh and fish are installed by scripts/setup.sh: in CI their absence is a failure, not a skip.
missing_shell() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 is not installed (scripts/setup.sh installs it)"; fail=1;
    else echo "skipped: $1 checks ($1 is not installed on this machine)"; fi
}
if command -v zsh >/dev/null; then zsh -n "$T/_mcph" && echo "ok: zsh -n" || { echo "FAIL: zsh -n"; fail=1; }
else missing_shell zsh; fi
"$MCPH" completion fish > "$T/mcph.fish" || { echo "FAIL: completion fish"; fail=1; }
if command -v fish >/dev/null; then fish -n "$T/mcph.fish" && echo "ok: fish -n" || { echo "FAIL: fish -n"; fail=1; }
else missing_shell fish; fi
"$MCPH" completion tcsh >/dev/null 2>"$T/err"; code=$?
check "an unknown shell is a usage error" 2 "$code"
grep -q "no completion script for shell 'tcsh'" "$T/err" || { echo "FAIL: unknown shell message: $(cat "$T/err")"; fail=1; }

# Servers of a --mcp-config file; completing must not start them (the command leaves a marker).
printf '{"mcpServers":{"alpha":{"command":"/bin/sh","args":["-c","touch %s/started"]},"beta":{"url":"http://127.0.0.1:9/mcp"}}}' \
    "$T" > "$T/servers.json"
complete_words() {  # complete_words <word>... : COMPREPLY for the last word, space-separated
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mcph; echo "${COMPREPLY[*]}"' _ "$T/mcph.bash" "$@"
}
check "commands" "tools" "$(complete_words "$MCPH" to)"
check "help's commands" "status" "$(complete_words "$MCPH" help sta)"
check "global options" "--mcp-config" "$(complete_words "$MCPH" --mcp-c)"
check "a command's options" "--brief" "$(complete_words "$MCPH" tools --br)"
check "an option only another command takes is not offered" "" "$(complete_words "$MCPH" servers --br)"
check "option values" "project" "$(complete_words "$MCPH" add -s pro)"
check "transport values" "stdio sse" "$(complete_words "$MCPH" add --transport s)"
check "shells" "bash zsh fish" "$(complete_words "$MCPH" completion '')"
check "server names" "alpha" "$(complete_words "$MCPH" --strict-mcp-config --mcp-config "$T/servers.json" get al)"
check "server/ for call" "beta/" "$(complete_words "$MCPH" --strict-mcp-config --mcp-config "$T/servers.json" call b)"
check "every server for tools" "alpha beta" "$(complete_words "$MCPH" --strict-mcp-config --mcp-config "$T/servers.json" tools '')"
# zsh: the completion function run with compadd/_describe/_files stubbed (zsh_complete.zsh).
# fish: `complete -C` on the sourced script. Both as the bash checks above; mcph found on PATH, as
# a user's shell finds it.
if command -v zsh >/dev/null; then
    zsh_words() { PATH="$(dirname "$MCPH"):$PATH" zsh -f "$(dirname "$0")/zsh_complete.zsh" "$T/_mcph" mcph "$@"; }
    check "zsh: commands" "tools" "$(zsh_words to)"
    check "zsh: a command's options" "--brief" "$(zsh_words tools --br)"
    check "zsh: option values" "project" "$(zsh_words add -s pro)"
    check "zsh: shells" "bash zsh fish" "$(zsh_words completion '')"
    check "zsh: server names of --mcp-config" "alpha" "$(zsh_words --strict-mcp-config --mcp-config "$T/servers.json" get al)"
    check "zsh: server/ for call" "beta/" "$(zsh_words --strict-mcp-config --mcp-config "$T/servers.json" call b)"
    check "zsh: servers for subscribe" "alpha beta" "$(zsh_words --strict-mcp-config --mcp-config "$T/servers.json" subscribe '')"
fi
if command -v fish >/dev/null; then
    fish_words() {  # the candidates only (fish prints "word<TAB>description")
        PATH="$(dirname "$MCPH"):$PATH" fish --no-config -c "source '$T/mcph.fish'; complete -C '$1'" | cut -f1 | tr '\n' ' ' | sed 's/ $//'
    }
    check "fish: commands" "tools" "$(fish_words 'mcph to')"
    check "fish: a command's options" "--brief" "$(fish_words 'mcph tools --br')"
    check "fish: option values" "project" "$(fish_words 'mcph add -s pro')"
    check "fish: server names of --mcp-config" "alpha" "$(fish_words "mcph --strict-mcp-config --mcp-config $T/servers.json get al")"
    check "fish: --mcp-config=FILE" "beta/" "$(fish_words "mcph --strict-mcp-config --mcp-config=$T/servers.json call b")"
    check "fish: servers for resources" "alpha beta" "$(fish_words "mcph --strict-mcp-config --mcp-config $T/servers.json resources ")"
fi
[ ! -e "$T/started" ] && echo "ok: completion started no server" || { echo "FAIL: completing a server name started it"; fail=1; }
# Each command the scripts complete a server for is a real command.
for c in $(sed -n 's/^ *\([a-z|-]*\))$/\1/p' "$T/mcph.bash" | tr '|' ' '); do
    "$MCPH" help "$c" >/dev/null 2>&1 || { echo "FAIL: the script completes servers for '$c', not a command"; fail=1; }
done

# The man page.
"$MCPH" man > "$T/mcph.1" || { echo "FAIL: mcph man exits $?"; fail=1; }
if command -v groff >/dev/null; then
    warnings=$(groff -man -Tutf8 -ww -z "$T/mcph.1" 2>&1)
    check "groff renders the man page without warnings" "" "$warnings"
    groff -man -Tutf8 -P-cbou "$T/mcph.1" 2>/dev/null | grep -q "EXIT STATUS" || { echo "FAIL: rendered page has no EXIT STATUS"; fail=1; }
else
    echo "skipped: groff rendering (groff is not installed); structure is checked below"
fi
for section in NAME SYNOPSIS DESCRIPTION COMMANDS "GLOBAL OPTIONS" "EXIT STATUS" FILES ENVIRONMENT; do
    grep -qx "\.SH $section" "$T/mcph.1" || { echo "FAIL: man page lacks .SH $section"; fail=1; }
done
head -2 "$T/mcph.1" | grep -q '^\.TH MCPH 1 ' || { echo "FAIL: no .TH MCPH 1"; fail=1; }
for c in $(sed -n 's/^complete -c mcph -n __fish_use_subcommand -a \([a-z-]*\) .*/\1/p' "$T/mcph.fish"); do
    [ "$c" == help ] && continue
    grep -qx "\.SS $(echo "$c" | sed 's/-/\\\\-/g')" "$T/mcph.1" || { echo "FAIL: man page has no section for '$c'"; fail=1; }
done
exit $fail
