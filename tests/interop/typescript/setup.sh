#!/usr/bin/env bash
# Installs (once) the official MCP TypeScript SDK packages pinned in
# package.json / package-lock.json, and Node 22 to run them with, and copies
# the scripts (client.mjs, server.mjs) next to their node_modules; see
# tests/interop/npm-setup.sh.
#
# Usage: tests/interop/typescript/setup.sh
# Environment:
#   MCP_INTEROP_TYPESCRIPT_DIR  where the packages are installed and the
#                               scripts run from (default:
#                               <repo>/.cache/interop/typescript)
#   MCP_CONFORMANCE_CACHE       where Node 22 lives (see tests/conformance/run.sh)
#
# Idempotent. Progress goes to stderr; the last line on stdout is the path of
# the node binary.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$HERE/../npm-setup.sh" "$HERE" MCP_INTEROP_TYPESCRIPT_DIR \
    --needs node_modules/@modelcontextprotocol/client \
    --needs node_modules/@modelcontextprotocol/server \
    client.mjs server.mjs
