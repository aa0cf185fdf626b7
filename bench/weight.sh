#!/usr/bin/env bash
# Build weight: a stdio server with one tool on mcp-runtime with only the
# features a stdio server needs (bench/weight/ours) against rmcp's
# equivalent (bench/weight/rmcp). For each, the number of crates it
# compiles (`cargo tree -e normal --prefix none | sort -u | wc -l`, the
# package itself included) and the time of a cold `cargo build --release`
# in a fresh target directory, one after the other; the sources are fetched
# first, so no download is timed. The target directories are removed at the
# end unless KEEP_TARGETS=1.
#
#   bash bench/weight.sh
#
# Environment:
#   WEIGHT_TARGETS  where the fresh target directories go [a new mktemp -d]
#   KEEP_TARGETS    1 keeps them [0]
#   PEERS           which of ours, rmcp, in this order [ours rmcp]
set -euo pipefail
cd "$(dirname "$0")/weight"

root="${WEIGHT_TARGETS:-$(mktemp -d -t mcp-weight.XXXXXX)}"
mkdir -p "$root"
cleanup() {
    if [[ "${KEEP_TARGETS:-0}" != 1 ]]; then
        rm -rf "$root"
    fi
}
trap cleanup EXIT
# Nothing inherited may change what is built or where.
unset CARGO_TARGET_DIR CARGO_INCREMENTAL CARGO_BUILD_TARGET_DIR RUSTFLAGS

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "rustc: $(rustc --version)"
echo "cpus: $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf '%-6s %8s %16s %14s\n' peer crates "cold build (s)" "CPU (user+sys)"
for peer in ${PEERS:-ours rmcp}; do
    manifest="$peer/Cargo.toml"
    cargo fetch --manifest-path "$manifest" --quiet
    crates=$(cargo tree --manifest-path "$manifest" -e normal --prefix none | sort -u | wc -l)
    target="$root/$peer"
    rm -rf "$target"
    # Wall-clock time, and the CPU time of cargo and its children (less
    # sensitive to other load on the machine).
    TIMEFORMAT='%R %U %S'
    times=$( { time CARGO_TARGET_DIR="$target" cargo build --release --quiet \
        --manifest-path "$manifest" >&2; } 2>&1 | tail -n 1)
    read -r real user sys <<<"$times"
    printf '%-6s %8d %16.1f %14.1f\n' "$peer" "$crates" "$real" "$(echo "$user + $sys" | bc)"
done
