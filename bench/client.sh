#!/usr/bin/env bash
# Client benchmark: our client (mcp-client-bench, bench/loadgen) against
# rmcp's (rmcp-client-bench, bench/peers), both driving ONE conformance-server
# over streamable HTTP on loopback. Each run connects one client and shares
# it among N concurrent tools/call loops of test_simple_text for DURATION
# seconds after WARMUP seconds; it prints one JSON line (calls/s, p50/p99
# latency, the client's own peak RSS). The clients run one after another,
# alternately, and the order rotates each round; the table takes medians.
#
#   bash bench/client.sh
#
# Clients (CLIENTS, space-separated):
#   ours          our client, era found by server/discover (2026-07-28 here)
#   ours-2025     our client pinned to a 2025-era session (pin_era(Era::Legacy))
#   rmcp          rmcp's client, 2025-era session (initialize at 2025-11-25),
#                 its default transport (no idle connections kept)
#   rmcp-2026     rmcp's client, server/discover at 2026-07-28, default transport
#   rmcp-pooled   rmcp's client, 2025-era session, given a pooling reqwest::Client
#   rmcp-pooled-2026  the same at 2026-07-28
#
# Environment (defaults in brackets):
#   ROUNDS        repetitions of the whole grid [3]
#   DURATION      measured seconds per run [5]
#   WARMUP        unmeasured seconds before [1]
#   CONCURRENCY   concurrent calls, space-separated [1 16]
#   CLIENTS       [ours ours-2025 rmcp rmcp-2026 rmcp-pooled rmcp-pooled-2026]
#   THREADS       client runtime threads (1: current-thread) [1]
#   PIN           1: server on CPU $SERVER_CPUS, client on CPU $CLIENT_CPUS
#                 (taskset), when there are 2 CPUs or more [1]
#   SERVER_CPUS   [1]      CLIENT_CPUS [0]
#   OUT           the result lines [$TARGET/bench/client.jsonl]
#   SKIP_BUILD    1: use the binaries already built [0]
#   CARGO_TARGET_DIR  where the root workspace builds [target]
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
WARMUP=${WARMUP:-1}
CONCURRENCY=${CONCURRENCY:-1 16}
CLIENTS=${CLIENTS:-ours ours-2025 rmcp rmcp-2026 rmcp-pooled rmcp-pooled-2026}
THREADS=${THREADS:-1}
PIN=${PIN:-1}
SERVER_CPUS=${SERVER_CPUS:-1}
CLIENT_CPUS=${CLIENT_CPUS:-0}
SKIP_BUILD=${SKIP_BUILD:-0}
TARGET=${CARGO_TARGET_DIR:-target}
OUT=${OUT:-$TARGET/bench/client.jsonl}

SERVER=$TARGET/release/conformance-server
OURS=$TARGET/release/mcp-client-bench
RMCP=bench/peers/target/release/rmcp-client-bench
LOGS=$TARGET/bench/logs

if [[ "$SKIP_BUILD" != 1 ]]; then
    echo "== building (release)" >&2
    cargo build --release -p mcp-examples --bin conformance-server >&2
    cargo build --release -p mcp-loadgen --bin mcp-client-bench >&2
    # bench/peers builds in its own target directory.
    env -u CARGO_TARGET_DIR cargo build --release --manifest-path bench/peers/Cargo.toml \
        --bin rmcp-client-bench >&2
fi
for bin in "$SERVER" "$OURS" "$RMCP"; do
    [[ -x "$bin" ]] || { echo "missing $bin (run without SKIP_BUILD=1)" >&2; exit 1; }
done

server_pin=()
client_pin=()
if [[ "$PIN" == 1 ]] && command -v taskset >/dev/null && (($(nproc) >= 2)); then
    server_pin=(taskset -c "$SERVER_CPUS")
    client_pin=(taskset -c "$CLIENT_CPUS")
fi

# The command line of client $1 (without --url and --concurrency).
command_of() {
    case "$1" in
        ours) echo "$OURS --client ours --era auto" ;;
        ours-2025) echo "$OURS --client ours-2025 --era 2025" ;;
        rmcp) echo "$RMCP --client rmcp --era 2025" ;;
        rmcp-2026) echo "$RMCP --client rmcp-2026 --era 2026" ;;
        rmcp-pooled) echo "$RMCP --client rmcp-pooled --era 2025 --pooled" ;;
        rmcp-pooled-2026) echo "$RMCP --client rmcp-pooled-2026 --era 2026 --pooled" ;;
        *) echo "unknown client $1" >&2; return 1 ;;
    esac
}
read -ra clients <<<"$CLIENTS"
for client in "${clients[@]}"; do command_of "$client" >/dev/null; done

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

# One server for every run, on a free loopback port.
log="$LOGS/client-server.log"
RUST_LOG=warn "${server_pin[@]}" "$SERVER" --listen 127.0.0.1:0 \
    --state-key-hex "$(printf '07%.0s' {1..32})" 2>"$log" &
server_pid=$!
url=""
for _ in $(seq 100); do
    url=$(grep -o -m1 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" || true)
    [[ -n "$url" ]] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [[ -z "$url" ]]; then
    echo "the server did not start; its log:" >&2
    cat "$log" >&2
    exit 1
fi

{
    echo "== machine"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "rustc: $(rustc --version)"
    echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo ' (with changes)')"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "pinning: ${server_pin[*]:-none} (server), ${client_pin[*]:-none} (client)"
    echo "server: $url"
    echo "per run: ${DURATION}s after ${WARMUP}s of warm-up; $ROUNDS round(s); client threads $THREADS"
} >&2

for round in $(seq "$ROUNDS"); do
    # Rotate the order each round, so no client always follows the same one.
    shift_by=$(((round - 1) % ${#clients[@]}))
    order=("${clients[@]:shift_by}" "${clients[@]:0:shift_by}")
    for concurrency in $CONCURRENCY; do
        for client in "${order[@]}"; do
            echo "== round $round: $client, $concurrency concurrent calls" >&2
            # shellcheck disable=SC2046 # the command is split on purpose
            line=$("${client_pin[@]}" $(command_of "$client") --url "$url" \
                --concurrency "$concurrency" --duration "$DURATION" --warmup "$WARMUP" \
                --threads "$THREADS") || {
                echo "$client failed" >&2
                continue
            }
            echo "$line" | tee -a "$OUT" >&2
        done
    done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "server peak RSS (VmHWM): $(grep VmHWM "/proc/$server_pid/status" | tr -s ' \t' ' ' | cut -d' ' -f2-)" >&2

# The table: medians over the rounds, in the order of CLIENTS.
python3 - "$OUT" "$CLIENTS" <<'PY'
import json, statistics, sys
path, clients = sys.argv[1], sys.argv[2].split()
runs = {}
for text in open(path):
    try:
        line = json.loads(text)
    except ValueError:
        continue
    runs.setdefault((line["concurrency"], line["client"]), []).append(line)
def median(lines, key):
    values = [l[key] for l in lines if l.get(key) is not None]
    return statistics.median(values) if values else float("nan")
print("| concurrency | client | protocol | calls/s | p50 ms | p99 ms | client peak RSS MiB | errors | runs | calls/s vs ours |")
print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
for concurrency in sorted({c for c, _ in runs}):
    base = runs.get((concurrency, "ours"))
    base_rate = median(base, "calls_per_s") if base else None
    for client in clients:
        lines = runs.get((concurrency, client))
        if not lines:
            continue
        rate = median(lines, "calls_per_s")
        ratio = f"{rate / base_rate:.2f}" if base_rate else "-"
        print(f"| {concurrency} | {client} | {lines[0]['protocol']} | {rate:.0f} "
              f"| {median(lines, 'p50_us') / 1000:.3f} | {median(lines, 'p99_us') / 1000:.3f} "
              f"| {median(lines, 'peak_rss_kb') / 1024:.1f} "
              f"| {sum(l['errors'] for l in lines)} | {len(lines)} | {ratio} |")
PY
