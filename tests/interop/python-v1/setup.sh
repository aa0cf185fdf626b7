#!/usr/bin/env bash
# Creates (once) the virtualenv the legacy Python interop tests run in and
# installs the official MCP Python SDK 1.x (the 2025-era client: initialize,
# sessions, elicitation/create) pinned in requirements.txt into it.
#
# Usage: tests/interop/python-v1/setup.sh
# Environment:
#   MCP_INTEROP_PYTHON_V1_VENV  where the virtualenv lives
#                               (default: <repo>/.cache/interop/python-v1)
#   PYTHON                      the interpreter that creates it (default: python3)
#
# Idempotent: when the virtualenv already has the pinned SDK, nothing is
# installed. Progress goes to stderr; the last line on stdout is the
# virtualenv's python.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
VENV="${MCP_INTEROP_PYTHON_V1_VENV:-$REPO/.cache/interop/python-v1}"
REQUIREMENTS="$HERE/requirements.txt"
MCP_VERSION="$(sed -n 's/^mcp==\([^[:space:]]*\).*/\1/p' "$REQUIREMENTS")"
PY="$VENV/bin/python"

log() { printf 'interop-python-v1-setup: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }

[[ -n "$MCP_VERSION" ]] || die "no 'mcp==VERSION' pin in $REQUIREMENTS"

installed_version() {
    "$PY" - <<'PYEOF' 2>/dev/null || true
from importlib.metadata import version
print(version("mcp"))
PYEOF
}

# (Re)create the virtualenv when it is missing or its interpreter no longer runs.
if ! "$PY" -c 'import sys' >/dev/null 2>&1; then
    command -v "${PYTHON:-python3}" >/dev/null || die "${PYTHON:-python3} not found on PATH"
    log "creating virtualenv $VENV"
    mkdir -p "$(dirname "$VENV")"
    "${PYTHON:-python3}" -m venv --clear "$VENV" >&2 || die "${PYTHON:-python3} -m venv $VENV failed"
fi

if [[ "$(installed_version)" != "$MCP_VERSION" ]]; then
    log "installing $REQUIREMENTS (mcp==$MCP_VERSION) into $VENV"
    "$PY" -m pip install --disable-pip-version-check --no-input --quiet \
        -r "$REQUIREMENTS" >&2 || die "pip install -r $REQUIREMENTS failed"
    [[ "$(installed_version)" == "$MCP_VERSION" ]] \
        || die "mcp $MCP_VERSION not importable from $PY after install"
else
    log "mcp $MCP_VERSION already installed in $VENV"
fi

echo "$PY"
