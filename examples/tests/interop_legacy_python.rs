//! Interoperability with the official MCP Python SDK 1.x client (`mcp`,
//! pinned in `tests/interop/python-v1/requirements.txt`), which speaks the
//! 2025-era protocol: it opens with `initialize`, keeps a session, and
//! answers the server's `elicitation/create` requests in its elicitation
//! callback.
//!
//! `tests/interop/python-v1/client.py` drives our `interop-server`, once
//! over streamable HTTP on 127.0.0.1 and once over stdio (the script spawns
//! `interop-server --stdio`): it lists the tools and prompts, calls `add`,
//! completes the two-round `book_table` tool and the `haiku` prompt through
//! the server's elicitation requests, declines, pings, calls `book_table`
//! from a client that declared no elicitation (an error result that says
//! so), and over HTTP ends its session with DELETE. See the script's header
//! comment.
//!
//! `tests/interop/python-v1/setup.sh` runs first (once per test binary) and
//! installs the SDK into `<repo>/.cache/interop/python-v1`. Every wait is
//! bounded.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use support::interop::Harness;
use support::legacy_clients::{check_over_http, check_over_stdio};

/// `tests/interop/python-v1/`: `client.py` and the virtualenv with the SDK.
static PYTHON_V1: Harness = Harness::venv("python-v1");

#[test]
fn python_v1_client_uses_a_session_over_streamable_http() {
    check_over_http("client.py", PYTHON_V1.command("client.py"));
}

#[test]
fn python_v1_client_over_stdio() {
    check_over_stdio("client.py", PYTHON_V1.command("client.py"));
}
