#!/usr/bin/env bash
# Creates (once) the virtualenv a Python interop harness runs in and installs
# the official MCP Python SDK pinned (`mcp==VERSION`) in the harness's
# requirements.txt into it. Each Python harness's setup.sh
# (tests/interop/{python,python-v1}/) is a call of this script.
#
# Usage: tests/interop/venv-setup.sh HARNESS_DIR VENV_VAR
#   HARNESS_DIR  the harness, tests/interop/NAME, with its requirements.txt
#   VENV_VAR     the environment variable that names the virtualenv
#                (default: <repo>/.cache/interop/NAME)
# Environment:
#   $VENV_VAR    see above
#   PYTHON       the interpreter that creates it (default: python3)
#
# Idempotent: when the virtualenv already has the pinned SDK, nothing is
# installed. Progress goes to stderr; the last line on stdout is the
# virtualenv's python.
set -euo pipefail

(($# == 2)) || { echo "usage: $0 HARNESS_DIR VENV_VAR" >&2; exit 2; }
HERE="$(cd "$1" && pwd)"
VENV_VAR="$2"
NAME="$(basename "$HERE")"
REPO="$(cd "$HERE/../../.." && pwd)"

log() { printf 'interop-%s-setup: %s\n' "$NAME" "$*" >&2; }
die() { log "error: $*"; exit 2; }

[[ "$VENV_VAR" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "not a variable name: $VENV_VAR"
VENV="${!VENV_VAR:-$REPO/.cache/interop/$NAME}"
REQUIREMENTS="$HERE/requirements.txt"
MCP_VERSION="$(sed -n 's/^mcp==\([^[:space:]]*\).*/\1/p' "$REQUIREMENTS")"
PY="$VENV/bin/python"

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
