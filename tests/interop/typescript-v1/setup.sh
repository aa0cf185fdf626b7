#!/usr/bin/env bash
# Installs (once) the official MCP TypeScript SDK v1 (`@modelcontextprotocol/sdk`,
# the 2025-era client: initialize, sessions, elicitation/create; and its demo
# OAuth authorization server) pinned in package.json / package-lock.json, and
# Node 22 to run it with, and copies the scripts (auth-server.mjs, client.mjs,
# oauth.mjs, server.mjs) next to their node_modules; see
# tests/interop/npm-setup.sh.
#
# Usage: tests/interop/typescript-v1/setup.sh
# Environment:
#   MCP_INTEROP_TYPESCRIPT_V1_DIR  where the packages are installed and the
#                                  script runs from (default:
#                                  <repo>/.cache/interop/typescript-v1)
#   MCP_CONFORMANCE_CACHE          where Node 22 lives (see tests/conformance/run.sh)
#
# Idempotent. Progress goes to stderr; the last line on stdout is the path of
# the node binary.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$HERE/../npm-setup.sh" "$HERE" MCP_INTEROP_TYPESCRIPT_V1_DIR \
    --needs node_modules/@modelcontextprotocol/sdk \
    auth-server.mjs client.mjs oauth.mjs server.mjs
