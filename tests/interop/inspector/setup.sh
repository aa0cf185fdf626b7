#!/usr/bin/env bash
# Installs (once) the MCP Inspector (`@modelcontextprotocol/inspector`, whose
# `--cli` mode lists and calls a server's tools from the command line) pinned
# in package.json / package-lock.json, and Node 22 to run it with; see
# tests/interop/npm-setup.sh.
#
# Usage: tests/interop/inspector/setup.sh
# Environment:
#   MCP_INTEROP_INSPECTOR_DIR  where the packages are installed (default:
#                              <repo>/.cache/interop/inspector)
#   MCP_CONFORMANCE_CACHE      where Node 22 lives (see tests/conformance/run.sh)
#
# The Inspector's command is then `node DIR/node_modules/.bin/mcp-inspector`
# (what `npx @modelcontextprotocol/inspector` runs), e.g.
#   node DIR/node_modules/.bin/mcp-inspector --cli http://127.0.0.1:PORT/mcp --method tools/list
#
# Idempotent. Progress goes to stderr; the last line on stdout is the path of
# the node binary.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$HERE/../npm-setup.sh" "$HERE" MCP_INTEROP_INSPECTOR_DIR \
    --needs node_modules/.bin/mcp-inspector
