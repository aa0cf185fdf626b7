#!/usr/bin/env bash
# Builds (once; cargo skips an up-to-date build) the official Rust SDK's
# server for the interop tests, rmcp-interop-server (rmcp 3.11, pinned with
# the rest of its dependencies in Cargo.lock), in the workspace of its own
# under this directory.
#
# Usage: tests/interop/rmcp/setup.sh
# Environment:
#   CARGO_TARGET_DIR  where cargo builds (default: <repo>/target, shared with
#                     the root workspace; this package's name keeps its
#                     binary apart)
#   CARGO             the cargo to run (default: cargo)
#
# Idempotent. Progress goes to stderr; the last line on stdout is the path of
# the rmcp-interop-server binary (a debug build).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$REPO/target}"

log() { printf 'interop-rmcp-setup: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }

log "building rmcp-interop-server (cargo build --locked) into $TARGET"
"${CARGO:-cargo}" build --locked --quiet --manifest-path "$HERE/Cargo.toml" \
    --target-dir "$TARGET" --bin rmcp-interop-server >&2 \
    || die "cargo build of $HERE failed"
BIN="$TARGET/debug/rmcp-interop-server"
[[ -x "$BIN" ]] || die "no binary at $BIN after the build"
echo "$BIN"
