#!/usr/bin/env bash
# Creates (once) the virtualenv the Python interop tests run in and installs
# the official MCP Python SDK pinned in requirements.txt into it; see
# tests/interop/venv-setup.sh.
#
# Usage: tests/interop/python/setup.sh
# Environment:
#   MCP_INTEROP_PYTHON_VENV  where the virtualenv lives
#                            (default: <repo>/.cache/interop/python)
#   PYTHON                   the interpreter that creates it (default: python3)
#
# Idempotent: when the virtualenv already has the pinned SDK, nothing is
# installed. Progress goes to stderr; the last line on stdout is the
# virtualenv's python.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$HERE/../venv-setup.sh" "$HERE" MCP_INTEROP_PYTHON_VENV
