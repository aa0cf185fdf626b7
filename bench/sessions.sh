#!/usr/bin/env bash
# Idle memory per open 2025-era session: for each count N, starts our
# conformance server fresh on a free 127.0.0.1 port, and `mcp-loadgen
# sessions` warms up its connections, reads the server's VmRSS
# (/proc/PID/status), opens N sessions (initialize at 2025-11-25, then
# notifications/initialized) and leaves them open, reading VmRSS halfway
# and at the end, checks that none was evicted, and prints
# (after - before) / N bytes per session; then the server is killed.
#
#   bash bench/sessions.sh
#
# Environment (defaults in brackets):
#   COUNTS        sessions to open, one fresh server each, space-separated;
#                 at most 100000, and at most the server's cap (10000 by
#                 default: past it a new session evicts the longest-idle
#                 one, which the check after the run reports) [5000 10000]
#   CONNECTIONS   connections the sessions are opened over [8]
#   SERVER_ARGS   extra conformance-server options, e.g. "--max-sessions 20000" []
#   PIN           1: server on CPU $SERVER_CPUS (taskset) [0]
#   SERVER_CPUS   [1]
#   OUT           the result lines [target/bench/sessions.tsv]
#   SKIP_BUILD    1: use the binaries already built [0]
set -euo pipefail
cd "$(dirname "$0")/.."

COUNTS=${COUNTS:-5000 10000}
CONNECTIONS=${CONNECTIONS:-8}
SERVER_ARGS=${SERVER_ARGS:-}
PIN=${PIN:-0}
SERVER_CPUS=${SERVER_CPUS:-1}
OUT=${OUT:-target/bench/sessions.tsv}
SKIP_BUILD=${SKIP_BUILD:-0}

TARGET=${CARGO_TARGET_DIR:-target}
OURS=$TARGET/release/conformance-server
LOADGEN=$TARGET/release/mcp-loadgen
LOGS=target/bench/logs

if [[ "$SKIP_BUILD" != 1 ]]; then
    echo "== building (release)" >&2
    cargo build --release -p mcp-examples --bin conformance-server >&2
    cargo build --release -p mcp-loadgen >&2
fi
for bin in "$OURS" "$LOADGEN"; do
    [[ -x "$bin" ]] || { echo "missing $bin (run without SKIP_BUILD=1)" >&2; exit 1; }
done

server_pin=()
if [[ "$PIN" == 1 ]] && command -v taskset >/dev/null && (($(nproc) >= 2)); then
    server_pin=(taskset -c "$SERVER_CPUS")
fi

mkdir -p "$(dirname "$OUT")" "$LOGS"
: >"$OUT"

server_pid=""
stop_server() {
    if [[ -n "$server_pid" ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}
trap stop_server EXIT

# Starts the server fresh and sets server_pid and url; waits at most 10 s
# for its 'listening on' line.
start_server() {
    local log="$LOGS/sessions-server.log"
    # shellcheck disable=SC2086 # the options are split on purpose
    RUST_LOG=warn "${server_pin[@]}" "$OURS" --listen 127.0.0.1:0 \
        --state-key-hex "$(printf '07%.0s' {1..32})" $SERVER_ARGS 2>"$log" &
    server_pid=$!
    url=""
    for _ in $(seq 100); do
        url=$(grep -o -m1 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" || true)
        [[ -n "$url" ]] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "the server did not start; its log:" >&2
    cat "$log" >&2
    return 1
}

{
    echo "== machine"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "rustc: $(rustc --version)"
    echo "pinning: ${server_pin[*]:-none} (server)"
} >&2

for count in $COUNTS; do
    start_server
    echo "== $count sessions over $CONNECTIONS connections" >&2
    "$LOADGEN" sessions --url "$url" --server ours --server-pid "$server_pid" \
        --count "$count" --connections "$CONNECTIONS" | tee -a "$OUT"
    stop_server
done
