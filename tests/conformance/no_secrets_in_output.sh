#!/usr/bin/env bash
# Runs auth scenarios of the official suite with mcph's most verbose logging and checks that no
# token, authorization code, client secret or workload assertion (a JWT) the suite handed out
# appears in what the client printed (stdout, stderr with every log line). auth/dpop adds the DPoP
# private key (PEM), proofs and DPoP-bound tokens.
# usage: no_secrets_in_output.sh <mcph-conformance binary>
set -u
client="$1"
here="$(cd "$(dirname "$0")" && pwd)"
keep="$(mktemp -d)"
trap 'rm -rf "$keep"' EXIT
MCPH_LOG_LEVEL=debug KEEP_RESULTS="$keep" bash "$here/run_conformance.sh" "$client" \
  auth/metadata-default auth/pre-registration auth/client-credentials-basic auth/scope-step-up \
  auth/wif-jwt-bearer auth/dpop >"$keep/run.log" 2>&1
status=$?
cat "$keep/run.log"
[ "$status" -eq 0 ] || { echo "the scenarios themselves failed"; exit 1; }
found=0
for out in "$keep"/*/stdout.txt "$keep"/*/stderr.txt; do
  [ -f "$out" ] || continue
  # What the suite's servers issue: test tokens and codes; secrets come from MCP_CONFORMANCE_CONTEXT
  # (the workload JWT of auth/wif-jwt-bearer among them: any JWT header is caught by `eyJ`).
  if grep -nE 'test-token|test-auth-code|access_token|refresh_token|client_secret|Bearer [A-Za-z0-9]|DPoP [A-Za-z0-9]|PRIVATE KEY|eyJ[A-Za-z0-9_-]{8}' "$out"; then
    echo "FAIL: secret material in $out"
    found=1
  fi
done
lines="$(cat "$keep"/*/stderr.txt 2>/dev/null | wc -l)"
[ "$lines" -gt 4 ] || { echo "FAIL: expected debug log lines to inspect, got $lines"; exit 1; }
[ "$found" -eq 0 ] && echo "no secrets in $lines lines of client output"
exit "$found"
