#!/usr/bin/env bash
# Instructions per HTTP request, counted by callgrind: unlike req/s they do
# not drift with what else the machine runs, so two builds compare on a
# busy machine too. Each server runs under valgrind, mcp-loadgen sends it a
# bounded number of requests, and the server is stopped; callgrind's totals
# are divided by the requests sent. Prints one line per server and
# workload, with the share of the instructions spent in memcpy/memmove
# (large futures moved) and in malloc/free.
#
#   bash bench/instructions.sh                      # ours, plain and two-round
#   SERVERS="ours baseline" bash bench/instructions.sh
#
# Environment (defaults in brackets):
#   SERVERS      ours (HEAD's conformance-server), ours-single-use (with
#                the in-memory replay guard), ours-single-use-unrecorded
#                (the guard without the outcome record), baseline (the one
#                bench/run.sh builds from BASELINE_REV; set BASELINE to use
#                another binary), limit (the bare axum handler that
#                bench/run.sh builds in bench/peers; plain only) [ours]
#   WORKLOADS    plain two-round legacy-plain [plain two-round]
#   REQUESTS     requests per run [5000]
#   CONCURRENCY  connections [16]
#   OURS         the conformance-server to measure as ours [HEAD's, built]
#   SKIP_BUILD   1: use the binaries already built [0]
#   CACHE        1: also simulate the caches (callgrind --cache-sim=yes,
#                caches sized as this CPU's) and print L1 instruction-cache
#                misses and L1 data read and write misses per request: a
#                request path that executes fewer instructions can still be
#                slower when its code or the state it writes is spread over
#                more cache lines [0]
set -euo pipefail
cd "$(dirname "$0")/.."

SERVERS=${SERVERS:-ours}
WORKLOADS=${WORKLOADS:-plain two-round}
REQUESTS=${REQUESTS:-5000}
CONCURRENCY=${CONCURRENCY:-16}
TARGET=${CARGO_TARGET_DIR:-target}
OURS=${OURS:-$TARGET/release/conformance-server}
LOADGEN="$TARGET/release/mcp-loadgen"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    # Two commands: `--bin` would filter both packages, and mcp-loadgen's
    # binary would not be built.
    cargo build --release -q -p mcp-examples --bin conformance-server
    cargo build --release -q -p mcp-loadgen
fi
if [[ " $SERVERS " == *" baseline "* && -z "${BASELINE:-}" ]]; then
    rev=${BASELINE_REV:-a1014b7}
    BASELINE="target/bench/baseline-$rev/target-lto/release/conformance-server"
    [[ -x "$BASELINE" ]] || { echo "no baseline at $BASELINE: run bench/run.sh with SERVERS=baseline once, or set BASELINE" >&2; exit 1; }
fi

command_of() {
    local key
    key="--state-key-hex $(printf '07%.0s' {1..32})"
    case "$1" in
        ours) echo "$OURS --listen 127.0.0.1:0 $key" ;;
        ours-single-use) echo "$(command_of ours) --single-use" ;;
        ours-single-use-unrecorded) echo "$(command_of ours) --single-use --no-outcome-record" ;;
        baseline) echo "$BASELINE --listen 127.0.0.1:0 $key" ;;
        limit) echo "bench/peers/target/release/limit-server --listen 127.0.0.1:0" ;;
        *) echo "unknown server $1" >&2; return 1 ;;
    esac
}

CACHE=${CACHE:-0}
SIMULATE=()
if [[ "$CACHE" == 1 ]]; then
    SIMULATE=(--cache-sim=yes)
    printf '| server | workload | requests | instructions per request | memcpy/memmove | malloc/free | L1i misses | L1d read misses | L1d write misses |\n'
    printf '|---|---|---:|---:|---:|---:|---:|---:|---:|\n'
else
    printf '| server | workload | requests | instructions per request | memcpy/memmove | malloc/free |\n'
    printf '|---|---|---:|---:|---:|---:|\n'
fi
for server in $SERVERS; do
    for workload in $WORKLOADS; do
        log="$OUT/$server-$workload.log"
        profile="$OUT/$server-$workload.callgrind"
        [[ "$server" == limit && "$workload" != plain ]] && continue
        # shellcheck disable=SC2046 # the command is split on purpose
        valgrind --tool=callgrind "${SIMULATE[@]}" --callgrind-out-file="$profile" \
            $(command_of "$server") 2>"$log" &
        pid=$!
        url=""
        for _ in $(seq 600); do
            url=$(grep -o -m1 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" || true)
            [[ -n "$url" ]] && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        [[ -n "$url" ]] || { echo "$server did not start:" >&2; cat "$log" >&2; exit 1; }
        "$LOADGEN" run --url "$url" --workload "$workload" --concurrency "$CONCURRENCY" \
            --requests "$REQUESTS" --duration 600 --warmup 0 --timeout 60 >"$OUT/load.txt"
        # callgrind writes its profile when the server is terminated.
        kill -TERM "$pid"
        wait "$pid" || true
        ok=$(grep -o -m1 $'\tok=[0-9]*' "$OUT/load.txt" | cut -d= -f2)
        errors=$(grep -o -m1 $'\terrors=[0-9]*' "$OUT/load.txt" | cut -d= -f2)
        [[ "${errors:-1}" == 0 ]] || { echo "$server $workload: errors in the load:" >&2; cat "$OUT/load.txt" >&2; exit 1; }
        sent=$ok
        callgrind_annotate --show=Ir --threshold=100 "$profile" 2>/dev/null >"$OUT/annotate.txt"
        misses=""
        if [[ "$CACHE" == 1 ]]; then
            misses=$(callgrind_annotate --show=I1mr,D1mr,D1mw --threshold=100 "$profile" 2>/dev/null \
                | grep "PROGRAM TOTALS" | sed 's/([^)]*)//g; s/,//g' | awk '{print $1, $2, $3}')
        fi
        python3 - "$OUT/annotate.txt" "$server" "$workload" "$sent" "$misses" <<'PY'
import re, sys
path, server, workload, sent = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
misses = [int(n) for n in sys.argv[5].split()]
total, copy, alloc = 0, 0, 0
for line in open(path, encoding="utf-8", errors="replace"):
    m = re.match(r"\s*([\d,]+)(?:\s+\([^)]*\))?\s+(?:\*\s+)?(\S.*)$", line)
    if not m:
        continue
    count, name = int(m.group(1).replace(",", "")), m.group(2)
    if "PROGRAM TOTALS" in name:
        total = count
        continue
    if re.search(r"mem(cpy|move)", name):
        copy += count
    elif re.search(r"\b(malloc|free|realloc|_int_malloc|_int_free|cfree)\b", name):
        alloc += count
if total == 0:
    sys.exit(f"no totals in {path}")
line = (f"| {server} | {workload} | {sent} | {total / sent / 1000:.1f}k "
        f"| {100 * copy / total:.1f}% | {100 * alloc / total:.1f}% |")
if misses:
    if len(misses) != 3:
        sys.exit(f"no cache totals in the profile of {server} {workload}")
    line += "".join(f" {n / sent:,.0f} |" for n in misses)
print(line)
PY
    done
done
