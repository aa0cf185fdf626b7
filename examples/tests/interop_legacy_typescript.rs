//! Interoperability with the official MCP TypeScript SDK v1 client
//! (`@modelcontextprotocol/sdk`, pinned in
//! `tests/interop/typescript-v1/package.json`), which speaks the 2025-era
//! protocol: it opens with `initialize`, keeps a session, and answers the
//! server's `elicitation/create` requests in its registered handler.
//!
//! `tests/interop/typescript-v1/client.mjs` drives our `interop-server`, once
//! over streamable HTTP on 127.0.0.1 and once over stdio (the script spawns
//! `interop-server --stdio`): it lists the tools and prompts, calls `add`,
//! completes the two-round `book_table` tool and the `haiku` prompt through
//! the server's elicitation requests, pings, over HTTP ends its session
//! (`terminateSession`, DELETE) and checks that the ended session id gets
//! 404, declines, and calls `book_table` from a client that declared no
//! elicitation (an error result that says so). See the script's header
//! comment.
//!
//! `tests/interop/typescript-v1/setup.sh` runs first (once per test
//! process): it installs Node 22 and the pinned package under `.cache/` when
//! they are missing (network access on the first run only). Every wait is
//! bounded.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use support::interop::Harness;
use support::legacy_clients::{check_over_http, check_over_stdio};

/// `tests/interop/typescript-v1/`: Node 22 and the SDK, with a copy of
/// `client.mjs` next to its `node_modules`.
static TYPESCRIPT_V1: Harness = Harness::npm(
    "typescript-v1",
    "MCP_INTEROP_TYPESCRIPT_V1_DIR",
    &["client.mjs"],
);

#[test]
fn typescript_v1_client_uses_a_session_over_streamable_http() {
    check_over_http("client.mjs", TYPESCRIPT_V1.command("client.mjs"));
}

#[test]
fn typescript_v1_client_over_stdio() {
    check_over_stdio("client.mjs", TYPESCRIPT_V1.command("client.mjs"));
}
