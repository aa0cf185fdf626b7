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

#[path = "support/legacy_clients.rs"]
mod legacy_clients;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use legacy_clients::{check_session_end, check_summary, interop_server, run_client};
use support::peer::Listening;
use support::process::{repo, set_up};

/// Bound for `setup.sh` (creating the virtualenv and installing the SDK).
const SETUP_TIMEOUT: Duration = Duration::from_secs(600);

fn interop_dir() -> PathBuf {
    repo().join("tests/interop/python-v1")
}

/// The virtualenv's python, after `setup.sh` made sure the SDK is installed.
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let mut command = Command::new("bash");
        command.arg(interop_dir().join("setup.sh"));
        set_up(command, SETUP_TIMEOUT)
    })
}

/// `client.py`, run with the virtualenv's python, reaching 127.0.0.1 directly.
fn client_py() -> Command {
    let mut command = Command::new(python());
    command
        .arg(interop_dir().join("client.py"))
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("NO_PROXY", "127.0.0.1")
        .env("no_proxy", "127.0.0.1");
    command
}

#[test]
fn python_v1_client_uses_a_session_over_streamable_http() {
    let server = Listening::interop_server();
    let mut client = client_py();
    client.args(["--url", &server.url]);
    let (summary, context) = run_client("client.py", client, &|| server.logs());
    assert_eq!(summary["transport"], "streamable-http", "{context}");
    check_summary(&summary, &context);
    check_session_end(&summary, &context);
}

#[test]
fn python_v1_client_over_stdio() {
    let mut client = client_py();
    client.args(["--stdio", "--", interop_server(), "--stdio"]);
    // Over stdio the server's stderr is the client's: it is in the context.
    let (summary, context) = run_client("client.py", client, &String::new);
    assert_eq!(summary["transport"], "stdio", "{context}");
    check_summary(&summary, &context);
}
