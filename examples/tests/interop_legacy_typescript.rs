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

#[path = "support/legacy_clients.rs"]
mod legacy_clients;
mod support;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use legacy_clients::{check_session_end, check_summary, interop_server, run_client};
use support::peer::Listening;
use support::process::{repo, set_up};

/// Bound for `setup.sh` (downloads Node 22 and the SDK on a fresh machine).
const SETUP_TIMEOUT: Duration = Duration::from_secs(900);

/// Where setup put Node 22 and the SDK (with a copy of the script).
struct Installed {
    node: PathBuf,
    dir: PathBuf,
}

/// Runs `setup.sh` once per test process.
fn installed() -> &'static Installed {
    static INSTALLED: OnceLock<Installed> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let dir = std::env::var_os("MCP_INTEROP_TYPESCRIPT_V1_DIR").map_or_else(
            || repo().join(".cache/interop/typescript-v1"),
            PathBuf::from,
        );
        let mut command = Command::new("bash");
        command
            .arg(repo().join("tests/interop/typescript-v1/setup.sh"))
            .env("MCP_INTEROP_TYPESCRIPT_V1_DIR", &dir);
        let node = set_up(command, SETUP_TIMEOUT);
        assert!(
            dir.join("client.mjs").is_file(),
            "setup.sh left no client.mjs in {dir:?}"
        );
        Installed { node, dir }
    })
}

/// `client.mjs`, run by Node 22 next to its `node_modules`.
fn client_mjs() -> Command {
    let installed = installed();
    let mut command = Command::new(&installed.node);
    command
        .arg(installed.dir.join("client.mjs"))
        .current_dir(&installed.dir)
        .env("NO_PROXY", "127.0.0.1")
        .env("no_proxy", "127.0.0.1");
    command
}

#[test]
fn typescript_v1_client_uses_a_session_over_streamable_http() {
    let server = Listening::interop_server();
    let mut client = client_mjs();
    client.args(["--url", &server.url]);
    let (summary, context) = run_client("client.mjs", client, &|| server.logs());
    assert_eq!(summary["transport"], "streamable-http", "{context}");
    check_summary(&summary, &context);
    check_session_end(&summary, &context);
}

#[test]
fn typescript_v1_client_over_stdio() {
    let mut client = client_mjs();
    client.args(["--stdio", "--", interop_server(), "--stdio"]);
    // Over stdio the server's stderr is the client's: it is in the context.
    let (summary, context) = run_client("client.mjs", client, &String::new);
    assert_eq!(summary["transport"], "stdio", "{context}");
    check_summary(&summary, &context);
}
