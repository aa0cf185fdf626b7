#!/usr/bin/env bash
# Load benchmark: our conformance server against the practical limit (a bare
# axum handler, bench/peers) and the official Rust SDK (rmcp, bench/peers),
# over streamable HTTP on loopback, for three workloads (a plain tools/call;
# the two-round input-required flow; the plain call as a 2025-era client
# makes it, inside a session) at several concurrencies. Each cell
# starts its server fresh on a free 127.0.0.1 port, drives it with
# bench/loadgen (bounded in requests and time), reads its peak RSS, and
# kills it; the servers of a cell run one after another, alternately.
# Prints the machine, every cell, and the markdown report with the ratios.
#
#   bash bench/run.sh
#
# Environment (defaults in brackets):
#   REQUESTS      most HTTP requests measured per cell [500000]
#   DURATION      most seconds measured per cell [5]
#   WARMUP        seconds of unmeasured load before each cell [1]
#   CONCURRENCY   connections, space-separated [1 16 64 256]
#   WORKLOADS     any of plain, two-round and legacy-plain (a 2025-era
#                 session per connection; run against ours and its
#                 variants only: limit and rmcp open no sessions)
#                 [plain two-round legacy-plain]
#   SERVERS       any of ours limit rmcp, and ours-single-use (--single-use),
#                 ours-redis (--redis, against a redis-server this script
#                 starts on a free loopback port, pinned with the load
#                 generator in the pinned mode), each of those two with
#                 -unrecorded (--no-outcome-record: no answer kept for
#                 duplicates) and baseline (the conformance-server of an
#                 earlier commit, built beside HEAD: see BASELINE_REV),
#                 also as baseline-single-use and the like (the baseline
#                 with the flags of ours-single-use and the like, for an
#                 A/B of a guard between two commits)
#                 [ours baseline limit rmcp]
#   BASELINE_REV  the commit the baseline cell is built from, in a worktree
#                 under target/bench with a target directory of its own
#                 and HEAD's release settings (SAME_RELEASE below);
#                 the default is before sessions, limits, auth and tasks
#                 [a1014b7]
#   BASELINE      a conformance-server binary to use as the baseline instead
#   MODES         pinned (server on CPU $SERVER_CPUS, load generator on CPU
#                 $LOADGEN_CPUS, with taskset) and/or shared (both on every
#                 CPU, as on a real host); the workload label of a shared
#                 cell ends in @shared [pinned shared]
#   DRIVERS       loadgen (bench/loadgen, every workload) and/or wrk (plain
#                 and two-round, `wrk --latency` with a Lua script, one
#                 thread per CPU it may run on; its cells are labelled
#                 plain@wrk, two-round@wrk) [loadgen wrk]
#   WRK_THREADS   wrk's threads [1 pinned to one CPU, 2 shared on 2 CPUs:
#                 the CPUs it may run on]
#   ROUNDS        repetitions of the whole grid; the report takes medians [1]
#   SERVER_CPUS   [1]      LOADGEN_CPUS [0]
#   LOADGEN_THREADS  load generator threads [1]
#   OUT           the result lines [target/bench/results.tsv]
#   OURS          the conformance-server to measure as ours
#                 [release/conformance-server of $CARGO_TARGET_DIR or target, built]
#   SKIP_BUILD    1: use the binaries already built [0]; as cargo linked them:
#                 a binary copied with cp maps more of its code (peak RSS up to
#                 0.8 MiB higher here; docs/benchmarks.md, "Claims of one
#                 scheduler pass in one pipeline")
set -euo pipefail
cd "$(dirname "$0")/.."

REQUESTS=${REQUESTS:-500000}
DURATION=${DURATION:-5}
WARMUP=${WARMUP:-1}
CONCURRENCY=${CONCURRENCY:-1 16 64 256}
WORKLOADS=${WORKLOADS:-plain two-round legacy-plain}
SERVERS=${SERVERS:-ours baseline limit rmcp}
BASELINE_REV=${BASELINE_REV:-a1014b7}
MODES=${MODES:-pinned shared}
DRIVERS=${DRIVERS:-loadgen wrk}
ROUNDS=${ROUNDS:-1}
SERVER_CPUS=${SERVER_CPUS:-1}
LOADGEN_CPUS=${LOADGEN_CPUS:-0}
LOADGEN_THREADS=${LOADGEN_THREADS:-1}
OUT=${OUT:-target/bench/results.tsv}
SKIP_BUILD=${SKIP_BUILD:-0}

TARGET=${CARGO_TARGET_DIR:-target}
OURS=${OURS:-$TARGET/release/conformance-server}
LOADGEN=$TARGET/release/mcp-loadgen
PEERS=bench/peers/target/release
LOGS=target/bench/logs

# The release settings of the workspace's Cargo.toml that change generated
# code (bench/peers/Cargo.toml has them too): the baseline is built with
# them, so that a ratio compares code, not build settings.
SAME_RELEASE=(env CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1)
if [[ "$SKIP_BUILD" != 1 ]]; then
    echo "== building (release)" >&2
    cargo build --release -p mcp-examples --bin conformance-server >&2
    cargo build --release -p mcp-loadgen >&2
    if [[ " $SERVERS " == *" limit "* || " $SERVERS " == *" rmcp "* ]]; then
        cargo build --release --manifest-path bench/peers/Cargo.toml >&2
    fi
fi
# The baseline: the conformance-server of $BASELINE_REV, built once in a
# worktree of its own (kept between runs, rebuilt only when missing), with
# HEAD's release settings (target-lto: a build with the commit's own
# settings, in target, is not reused).
if [[ " $SERVERS " == *" baseline"* && -z "${BASELINE:-}" ]]; then
    rev=$(git rev-parse --short "$BASELINE_REV")
    tree=target/bench/baseline-$rev
    BASELINE=$tree/target-lto/release/conformance-server
    if [[ ! -x "$BASELINE" ]]; then
        echo "== building the baseline $rev in $tree" >&2
        [[ -d "$tree" ]] || git worktree add --detach "$tree" "$rev" >&2
        (cd "$tree" && CARGO_TARGET_DIR=target-lto "${SAME_RELEASE[@]}" cargo build --release -p mcp-examples --bin conformance-server >&2)
    fi
fi
if [[ " $DRIVERS " == *" wrk "* ]] && ! command -v wrk >/dev/null; then
    echo "wrk is not installed (apt-get install wrk); DRIVERS=loadgen runs without it" >&2
    exit 1
fi
needed=("$LOADGEN")
for server in $SERVERS; do
    case "$server" in
        ours*) needed+=("$OURS") ;;
        baseline*) needed+=("$BASELINE") ;;
        limit) needed+=("$PEERS/limit-server") ;;
        rmcp) needed+=("$PEERS/rmcp-server") ;;
    esac
done
for bin in "${needed[@]}"; do
    [[ -x "$bin" ]] || { echo "missing $bin (run without SKIP_BUILD=1)" >&2; exit 1; }
done

# Sets server_pin and loadgen_pin for mode $1: taskset prefixes when
# pinned (and there are 2 CPUs or more), nothing when shared. Our
# redis-server, when there is one, goes with the load generator when pinned
# (the server's CPU stays its own, as when Redis runs on another host) and
# on every CPU when shared.
server_pin=()
loadgen_pin=()
wrk_threads=${WRK_THREADS:-}
pin_for() {
    server_pin=()
    loadgen_pin=()
    local redis_cpus="0-$(($(nproc) - 1))"
    if [[ "$1" == pinned ]] && command -v taskset >/dev/null && (($(nproc) >= 2)); then
        server_pin=(taskset -c "$SERVER_CPUS")
        loadgen_pin=(taskset -c "$LOADGEN_CPUS")
        redis_cpus=$LOADGEN_CPUS
    fi
    # One wrk thread per CPU it may run on: two threads on one CPU spend
    # half as much again per request switching between them (17 to 18 us
    # against 12 to 13 us for the two-round flow at 4 connections), which
    # leaves a faster server waiting on wrk.
    wrk_threads=${WRK_THREADS:-$("${loadgen_pin[@]}" nproc)}
    if [[ -n "${redis_pid:-}" ]] && command -v taskset >/dev/null; then
        taskset -pc "$redis_cpus" "$redis_pid" >/dev/null ||
            echo "cannot pin redis-server to CPUs $redis_cpus; it runs where it was" >&2
    fi
}

# The Lua scripts wrk drives each workload with: the load generator's
# bodies. For two-round, each thread keeps the requestStates its answers
# carried in a queue, and its next request echoes the oldest with the
# answer, or starts a new flow when there is none: half the requests are
# first rounds, half retries, each state echoed once. An answer that is
# neither input_required nor a completed result counts as failed, and the
# script prints how many ("Failed answers: N").
mkdir -p target/bench
wrk_script() { echo "target/bench/$1.lua"; }
WRK_HEADERS='wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
local meta = [["_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1"}}]]'
cat >"$(wrk_script plain)" <<LUA
$WRK_HEADERS
wrk.headers["Mcp-Name"] = "test_simple_text"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{' .. meta .. ',"name":"test_simple_text","arguments":{}}}'
LUA
cat >"$(wrk_script two-round)" <<LUA
$WRK_HEADERS
local tool = "test_input_required_result_request_state"
wrk.headers["Mcp-Name"] = tool
local first = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{' .. meta .. ',"name":"' .. tool .. '","arguments":{}}}'
local retry = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{' .. meta .. ',"name":"' .. tool
    .. '","arguments":{},"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"requestState":"'
local states, oldest, newest = {}, 1, 0
failed = 0
function request()
    if oldest > newest then
        return wrk.format(nil, nil, nil, first)
    end
    local state = states[oldest]
    states[oldest] = nil
    oldest = oldest + 1
    return wrk.format(nil, nil, nil, retry .. state .. '"}}')
end
function response(status, headers, body)
    local state = status == 200 and body:match('"requestState"%s*:%s*"([^"]+)"')
    if state then
        newest = newest + 1
        states[newest] = state
    elseif status ~= 200 or not body:find('"content"%s*:%s*%[') or body:find('"isError"%s*:%s*true') then
        failed = failed + 1
    end
end
local threads = {}
function setup(thread)
    table.insert(threads, thread)
end
function done()
    local total = 0
    for _, thread in ipairs(threads) do
        total = total + thread:get("failed")
    end
    io.write(string.format("Failed answers: %d\n", total))
end
LUA

# A latency as wrk prints it (850.00us, 1.20ms, 2.00s) in microseconds.
to_us() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) print int(n); else if (v ~ /ms$/) print int(n * 1000);
        else if (v ~ /s$/) print int(n * 1000000); else print int(n) }'
}

# The CPU time the host has taken from this machine since boot, ms (steal
# on /proc/stat's cpu line, in USER_HZ ticks of 10 ms), or - without it.
steal_ms() {
    awk '/^cpu / { if (NF >= 9) print $9 * 10; else print "-"; found = 1 }
         END { if (!found) print "-" }' /proc/stat 2>/dev/null || echo -
}

# One wrk cell against the running server: the result line, in the load
# generator's format. The errors are the answers the script failed (two-round),
# or else the non-2xx answers (plain).
wrk_cell() {
    local server=$1 workload=$2 label=$3 concurrency=$4 script out requests rps p50 p99 max errors rss
    local steal_before steal threads=$wrk_threads
    # wrk wants a connection per thread at least.
    if ((threads > concurrency)); then
        threads=$concurrency
    fi
    script=$(wrk_script "$workload")
    "${loadgen_pin[@]}" wrk -t"$threads" -c"$concurrency" -d"${WARMUP}s" -s "$script" "$url" >/dev/null
    steal_before=$(steal_ms)
    out=$("${loadgen_pin[@]}" wrk -t"$threads" -c"$concurrency" -d"${DURATION}s" --latency -s "$script" "$url")
    steal=$(steal_ms)
    [[ "$steal" != - && "$steal_before" != - ]] && steal=$((steal - steal_before)) || steal=-
    requests=$(awk '/requests in/ {print $1}' <<<"$out")
    rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
    p50=$(to_us "$(awk '$1 == "50%" {print $2}' <<<"$out")")
    p99=$(to_us "$(awk '$1 == "99%" {print $2}' <<<"$out")")
    max=$(to_us "$(awk '$1 == "Latency" {print $4}' <<<"$out")")
    errors=$(awk '/^Failed answers/ {print $NF}' <<<"$out")
    [[ -n "$errors" ]] || errors=$(awk '/Non-2xx/ {print $NF}' <<<"$out")
    rss=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status" 2>/dev/null || echo -)
    printf 'server=%s\tworkload=%s\tconcurrency=%s\tok=%s\terrors=%s\tseconds=%s\trps=%s\tp50_us=%s\tp99_us=%s\tmax_us=%s\trss_kb=%s\tsteal_ms=%s\n' \
        "$server" "$label" "$concurrency" "$((requests - ${errors:-0}))" "${errors:-0}" "$DURATION" \
        "$rps" "$p50" "$p99" "$max" "${rss:--}" "$steal"
}

mkdir -p "$(dirname "$OUT")" "$LOGS"
: >"$OUT"

# The command that serves each server on a free loopback port.
command_of() {
    case "$1" in
        ours) echo "$OURS --listen 127.0.0.1:0 --state-key-hex $(printf '07%.0s' {1..32})" ;;
        ours-single-use) echo "$(command_of ours) --single-use" ;;
        ours-redis) echo "$(command_of ours) --redis redis://127.0.0.1:$REDIS_PORT" ;;
        ours-single-use-unrecorded) echo "$(command_of ours-single-use) --no-outcome-record" ;;
        ours-redis-unrecorded) echo "$(command_of ours-redis) --no-outcome-record" ;;
        baseline) echo "${BASELINE:?set BASELINE to a conformance-server binary} --listen 127.0.0.1:0 --state-key-hex $(printf '07%.0s' {1..32})" ;;
        baseline-*) echo "$(command_of baseline) $(command_of "ours-${1#baseline-}" | cut -d" " -f6-)" ;;
        limit) echo "$PEERS/limit-server --listen 127.0.0.1:0" ;;
        rmcp) echo "$PEERS/rmcp-server --listen 127.0.0.1:0" ;;
        *) echo "unknown server $1" >&2; return 1 ;;
    esac
}

# Whether server $1 serves workload $2: the peers answer initialize without
# opening a session (limit with a tool result, rmcp statelessly), so they
# have no 2025-era workload.
serves() {
    case "$2:$1" in
        legacy-plain:limit | legacy-plain:rmcp) return 1 ;;
        *) return 0 ;;
    esac
}

# A redis-server of our own for ours-redis, without persistence.
redis_pid=""
if [[ " $SERVERS " == *"-redis"* ]]; then
    redis_bin=$(bash tests/fleet/ensure-redis.sh | tail -n1)
    REDIS_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$redis_bin" --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no >"$LOGS/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 100); do
        [[ "$(printf 'PING\r\n' | timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$REDIS_PORT; cat >&3; head -c5 <&3" 2>/dev/null)" == "+PONG" ]] && break
        sleep 0.1
    done
fi

server_pid=""
stop_server() {
    if [[ -n "$server_pid" ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    fi
}
stop_all() {
    stop_server
    if [[ -n "$redis_pid" ]]; then
        kill "$redis_pid" 2>/dev/null || true
        wait "$redis_pid" 2>/dev/null || true
    fi
}
trap stop_all EXIT

# Sends one command (its words as arguments) to our redis-server and prints
# the reply's payload.
redis_cli() {
    python3 - "$REDIS_PORT" "$@" <<'PY'
import socket, sys
port, words = int(sys.argv[1]), sys.argv[2:]
with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
    s.sendall(b"".join([b"*%d\r\n" % len(words)] + [b"$%d\r\n%s\r\n" % (len(w), w.encode()) for w in words]))
    reply = s.makefile("rb")
    head = reply.readline()
    if head[:1] == b"$":
        print(reply.read(int(head[1:])).decode())
    else:
        print(head[1:].decode().strip())
PY
}

# After a cell against Redis: what the guard left in Redis (its keys and
# their memory) and the commands it sent per retry, then an empty Redis
# with fresh statistics for the next cell. Every retry leaves one key, so
# keys count the retries (warm-up included, as in the command counts).
# Commands a script runs count in Redis's statistics too. On Redis 7 no
# script runs: a claim is one SET NX GET, a record one SET XX KEEPTTL. (On an
# older Redis each claim is a script that runs one GET and, on a first use,
# one SET: the SETs less the GETs are then what was sent as SET.)
redis_report() {
    local keys used stats
    keys=$(redis_cli DBSIZE | tr -dc '0-9')
    used=$(redis_cli INFO memory | grep -o 'used_memory:[0-9]*' | cut -d: -f2)
    stats=$(redis_cli INFO commandstats)
    echo "redis after $1: ${keys:-?} keys, used_memory ${used:-?} B, $(
        python3 - "${keys:-0}" "$stats" <<'PY'
import re, sys
keys, stats = int(sys.argv[1]), sys.argv[2]
calls = {m.group(1): int(m.group(2)) for m in re.finditer(r"cmdstat_([a-z|]+):calls=(\d+)", stats)}
sets = max(calls.get("set", 0) - calls.get("get", 0), 0)
scripts = calls.get("evalsha", 0) + calls.get("eval", 0)
per = (sets + scripts) / keys if keys else 0
print(f"commands sent: {sets} SET + {scripts} EVALSHA/EVAL = {per:.2f} per retry")
PY
    )" >&2
    redis_cli FLUSHALL >/dev/null
    redis_cli CONFIG RESETSTAT >/dev/null
}

# Starts server $1 fresh and sets server_pid and url; waits at most 10 s for
# its 'listening on' line.
start_server() {
    local log="$LOGS/$1.log" cmd
    cmd=$(command_of "$1")
    # shellcheck disable=SC2086 # the command is split on purpose
    RUST_LOG=warn "${server_pin[@]}" $cmd 2>"$log" &
    server_pid=$!
    url=""
    for _ in $(seq 100); do
        url=$(grep -o -m1 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" || true)
        [[ -n "$url" ]] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "server $1 did not start; its log:" >&2
    cat "$log" >&2
    return 1
}

{
    echo "== machine"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "rustc: $(rustc --version)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "modes: $MODES (pinned: server on CPU $SERVER_CPUS, load generator on CPU $LOADGEN_CPUS)"
    echo "drivers: $DRIVERS; baseline: ${BASELINE:-none} ($BASELINE_REV)"
    echo "per cell: at most $REQUESTS requests or ${DURATION}s after ${WARMUP}s of warm-up; $ROUNDS round(s)"
} >&2

for round in $(seq "$ROUNDS"); do
  for mode in $MODES; do
    pin_for "$mode"
    suffix=""
    [[ "$mode" == shared ]] && suffix="@shared"
    for driver in $DRIVERS; do
      for workload in $WORKLOADS; do
        # wrk drives the plain call and the two-round flow.
        [[ "$driver" == wrk && "$workload" == legacy-plain ]] && continue
        label=$workload
        [[ "$driver" == wrk ]] && label="$workload@wrk"
        label="$label$suffix"
        for concurrency in $CONCURRENCY; do
            for server in $SERVERS; do
                serves "$server" "$workload" || continue
                start_server "$server"
                echo "== round $round: $label, $concurrency connections, $server" >&2
                if [[ "$driver" == wrk ]]; then
                    line=$(wrk_cell "$server" "$workload" "$label" "$concurrency")
                else
                    line=$("${loadgen_pin[@]}" "$LOADGEN" run --url "$url" --server "$server" \
                        --workload "$workload" --concurrency "$concurrency" \
                        --requests "$REQUESTS" --duration "$DURATION" --warmup "$WARMUP" \
                        --threads "$LOADGEN_THREADS" --server-pid "$server_pid" |
                        sed "s/\tworkload=$workload\t/\tworkload=$label\t/")
                fi || {
                    echo "$driver failed against $server" >&2
                    stop_server
                    continue
                }
                echo "$line" | tee -a "$OUT" >&2
                [[ "$server" == *-redis* ]] && redis_report "$server $label $concurrency"
                stop_server
            done
        done
      done
    done
  done
done

echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$LOADGEN" report "$OUT"
