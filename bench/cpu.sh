#!/usr/bin/env bash
# Server CPU time per request: each variant's server, pinned to CPU 1, gets
# a fixed number of requests from the load generator on CPU 0, and the CPU
# time it spent (user + system, from /proc/<pid>/stat) is divided by the
# requests answered, and so are the page faults it took (first touches of
# memory it had not used yet: what a store that grows pays besides its
# instructions). On a machine whose req/s drift by 10 to 20% from one
# cell to the next, this moves much less; variants alternate, and the
# median of the rounds is printed with its minimum.
#
#   bash bench/cpu.sh "none=target/release/conformance-server \
#                      in-memory=target/release/conformance-server,--single-use"
#   WORKLOAD=plain bash bench/cpu.sh "ours=target/release/conformance-server \
#                      limit=bench/peers/target/release/limit-server"
#
# A variant is label=binary, then its flags after commas; every binary but
# the limit-server is given a request-state key. Environment
# (defaults in brackets):
#   ROUNDS     alternations [6]
#   WORKLOAD   plain, two-round or legacy-plain [two-round]
#   CONNS      connections [64]
#   REQUESTS   requests measured per run, after WARMUP requests [80000]
#   WARMUP     requests sent before each measured run [20000]; with a short
#              --state-ttl among the flags, enough of them to pass the TTL
#              measures a replay guard in its steady state (entries expire
#              as fast as they come) instead of while it grows
#   REDIS      1: start a redis-server on 127.0.0.1:$REDIS_PORT, pinned to
#              CPU 0 with the load generator, for variants that use it [0]
#   REDIS_PORT [6391]
set -euo pipefail
cd "$(dirname "$0")/.."

VARIANTS=${1:?usage: bash bench/cpu.sh "label=binary[,flag...] ..."}
ROUNDS=${ROUNDS:-6}
WORKLOAD=${WORKLOAD:-two-round}
CONNS=${CONNS:-64}
REQUESTS=${REQUESTS:-80000}
WARMUP=${WARMUP:-20000}
REDIS=${REDIS:-0}
REDIS_PORT=${REDIS_PORT:-6391}
LOADGEN=${CARGO_TARGET_DIR:-target}/release/mcp-loadgen
KEY=$(printf '07%.0s' {1..32})
LOG=$(mktemp)
RESULTS=$(mktemp)
redis_pid=""
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
    # Waited for: a run started right after this one binds the same port.
    if [[ -n "$redis_pid" ]]; then
        kill "$redis_pid" 2>/dev/null || true
        wait "$redis_pid" 2>/dev/null || true
    fi
    rm -f "$LOG" "$RESULTS"
}
trap cleanup EXIT

[[ -x "$LOADGEN" ]] || cargo build --release -p mcp-loadgen >&2
if [[ "$REDIS" == 1 ]]; then
    taskset -c 0 redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' \
        --appendonly no >/dev/null 2>&1 &
    redis_pid=$!
    sleep 0.3
    kill -0 "$redis_pid" 2>/dev/null || { echo "redis-server did not start on port $REDIS_PORT" >&2; exit 1; }
fi

# CPU ticks (user + system) of a process.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# Minor page faults of a process.
faults() { awk '{print $10}' "/proc/$1/stat"; }

for _ in $(seq "$ROUNDS"); do
    for variant in $VARIANTS; do
        label=${variant%%=*}
        rest=${variant#*=}
        binary=${rest%%,*}
        flags=""
        [[ "$rest" == *,* ]] && flags=${rest#*,} && flags=${flags//,/ }
        # The limit (bench/peers) keeps no request state, and takes no key.
        key=(--state-key-hex "$KEY")
        [[ "$(basename "$binary")" == limit-server ]] && key=()
        # shellcheck disable=SC2086 # the flags are words
        taskset -c 1 "$binary" --listen 127.0.0.1:0 "${key[@]}" $flags >"$LOG" 2>&1 &
        server_pid=$!
        url=""
        for _ in $(seq 100); do
            url=$(grep -o -m1 'http://127\.0\.0\.1:[0-9]*/mcp' "$LOG" || true)
            [[ -n "$url" ]] && break
            sleep 0.1
        done
        [[ -n "$url" ]] || { echo "$label did not start: $(cat "$LOG")" >&2; exit 1; }
        run() {
            taskset -c 0 "$LOADGEN" run --url "$url" --server "$label" --workload "$WORKLOAD" \
                --concurrency "$CONNS" --requests "$1" --duration 60 --warmup 0 --threads 1
        }
        run "$WARMUP" >/dev/null
        before=$(ticks "$server_pid")
        faults_before=$(faults "$server_pid")
        out=$(run "$REQUESTS")
        after=$(ticks "$server_pid")
        faults_after=$(faults "$server_pid")
        ok=$(tr '\t' '\n' <<<"$out" | sed -n 's/^ok=//p')
        rps=$(tr '\t' '\n' <<<"$out" | sed -n 's/^rps=//p')
        tick_us=$((1000000 / $(getconf CLK_TCK)))
        us=$(awk -v t=$((after - before)) -v n="$ok" -v u="$tick_us" 'BEGIN {printf "%.2f", t * u / n}')
        per_request=$(awk -v f=$((faults_after - faults_before)) -v n="$ok" 'BEGIN {printf "%.4f", f / n}')
        echo "$label cpu_us_per_request=$us faults_per_request=$per_request rps=$rps" \
            | tee -a "$RESULTS" >&2
        kill "$server_pid"
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    done
done

# The median of the numbers on stdin, one per line, with $1 decimals [2].
median() {
    sort -g | awk -v f="%.${1:-2}f\n" '{v[NR] = $1} END {
        if (NR % 2) printf f, v[(NR + 1) / 2]; else printf f, (v[NR / 2] + v[NR / 2 + 1]) / 2
    }'
}

echo "| variant | CPU per request, median (min) | page faults per request, median | req/s, median |"
echo "|---|---:|---:|---:|"
for variant in $VARIANTS; do
    label=${variant%%=*}
    us=$(grep "^$label " "$RESULTS" | sed 's/.*cpu_us_per_request=\([0-9.]*\).*/\1/')
    pf=$(grep "^$label " "$RESULTS" | sed 's/.*faults_per_request=\([0-9.]*\).*/\1/')
    rps=$(grep "^$label " "$RESULTS" | sed 's/.*rps=//')
    echo "| $label | $(median <<<"$us") us ($(sort -g <<<"$us" | head -n1)) | $(median 4 <<<"$pf") | $(median <<<"$rps") |"
done
