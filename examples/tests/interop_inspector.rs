//! Interoperability with the MCP Inspector's command-line mode
//! (`@modelcontextprotocol/inspector --cli`, pinned in
//! `tests/interop/inspector/package.json`): it lists the tools of our
//! `interop-server` and calls `add`, once over streamable HTTP on 127.0.0.1
//! (the target is the server's URL) and once over stdio (the target is the
//! command `interop-server --stdio`, which the Inspector spawns).
//!
//! The Inspector runs exactly as a user types it:
//!
//! ```text
//! mcp-inspector --cli http://127.0.0.1:PORT/mcp --method tools/list
//! mcp-inspector --cli http://127.0.0.1:PORT/mcp --method tools/call --tool-name add --tool-arg a=2 --tool-arg b=3
//! mcp-inspector --cli --method tools/list -- interop-server --stdio
//! ```
//!
//! The transport is detected from the target (a URL ending in `/mcp` is
//! streamable HTTP, a command is stdio), and its default protocol era for a
//! target given on the command line is `legacy`: it opens with `initialize`
//! (2025-11-25) and, over HTTP, keeps the `MCP-Session-Id` session the
//! server opens. `--method initialize` prints the negotiated
//! `InitializeResult`, which shows the era. The Inspector also offers
//! `--protocol-era auto` (a `server/discover` probe, then 2026-07-28
//! requests with `_meta`), checked here too. Its default output is the
//! method's result, pretty-printed JSON, on stdout.
//!
//! `tests/interop/inspector/setup.sh` runs first (once per test process): it
//! installs Node 22 and the pinned package under `.cache/` when they are
//! missing (network access on the first run only). Every Inspector run is
//! bounded (and killed when it overruns), and the HTTP server is killed on
//! drop; over stdio the Inspector owns the server process, which ends at
//! the end of its input when the Inspector exits or is killed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::process::Command;

use serde_json::Value;
use support::interop::{Harness, interop_server_bin, run_client};
use support::legacy_clients::LEGACY_VERSIONS;
use support::peer::Listening;

/// The version of the stateless era.
const MODERN_VERSION: &str = "2026-07-28";

/// The Inspector's launcher (what `npx @modelcontextprotocol/inspector` runs).
const LAUNCHER: &str = "node_modules/.bin/mcp-inspector";

/// `tests/interop/inspector/`: Node 22 and the Inspector.
static INSPECTOR: Harness = Harness::npm("inspector", "MCP_INTEROP_INSPECTOR_DIR", &[LAUNCHER]);

/// Where the CLI is reached: a URL, or the command of a stdio server.
enum Target<'a> {
    Http(&'a Listening),
    Stdio,
}

/// The Inspector's launcher (`npx @modelcontextprotocol/inspector`) in CLI
/// mode, run by Node 22. `args` are the CLI's options; the target comes
/// first (a URL) or after `--` (a command). The Inspector keeps its files
/// (`~/.mcp-inspector/`) in a home of its own under the install directory.
fn inspector(target: &Target<'_>, args: &[&str]) -> Command {
    let mut command = INSPECTOR.command(LAUNCHER);
    let home = INSPECTOR.installed().dir.join("home");
    std::fs::create_dir_all(&home)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", home.display()));
    command.arg("--cli").env("HOME", home).env("NO_COLOR", "1");
    match target {
        Target::Http(server) => {
            command.arg(&server.url).args(args);
        }
        Target::Stdio => {
            command
                .args(args)
                .args(["--", interop_server_bin(), "--stdio"]);
        }
    }
    command
}

/// Runs the Inspector with `args` against `target` (bounded), asserts that it
/// exited 0, and returns the JSON result it printed with a description of
/// the run for assertion messages.
fn run(target: &Target<'_>, args: &[&str]) -> (Value, String) {
    let server = match target {
        Target::Http(server) => Some(*server),
        Target::Stdio => None,
    };
    run_client("the Inspector CLI", inspector(target, args), server)
}

/// `--method initialize`: the era the Inspector negotiated, checked to be
/// `expected` (one of `LEGACY_VERSIONS`, or `MODERN_VERSION`).
fn check_initialize(target: &Target<'_>, extra: &[&str], expected: &[&str]) {
    let mut args = vec!["--method", "initialize"];
    args.extend_from_slice(extra);
    let (result, context) = run(target, &args);
    let version = result["protocolVersion"].as_str().unwrap_or_default();
    assert!(
        expected.contains(&version),
        "negotiated {version:?}, expected one of {expected:?}:\n{context}"
    );
    assert_eq!(result["serverInfo"]["name"], "interop-server", "{context}");
    assert!(
        result["capabilities"]["tools"].is_object(),
        "the server must declare tools:\n{context}"
    );
}

/// `--method tools/list`: both tools of `interop-server` are listed.
fn check_tools_list(target: &Target<'_>, extra: &[&str]) {
    let mut args = vec!["--method", "tools/list"];
    args.extend_from_slice(extra);
    let (result, context) = run(target, &args);
    let names: Vec<&str> = result["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list printed no tools array:\n{context}"))
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    for name in ["add", "book_table"] {
        assert!(
            names.contains(&name),
            "tools/list lacks {name:?} (listed {names:?}):\n{context}"
        );
    }
}

/// `--method tools/call --tool-name add --tool-arg a=2 --tool-arg b=3`: the
/// result is the text "5".
fn check_add(target: &Target<'_>, extra: &[&str]) {
    let mut args = vec![
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-arg",
        "a=2",
        "--tool-arg",
        "b=3",
    ];
    args.extend_from_slice(extra);
    let (result, context) = run(target, &args);
    assert_ne!(result["isError"], true, "{context}");
    let content = result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/call printed no content array:\n{context}"));
    assert_eq!(content.len(), 1, "{context}");
    assert_eq!(content[0]["type"], "text", "{context}");
    assert_eq!(content[0]["text"], "5", "{context}");
}

#[test]
fn inspector_cli_lists_and_calls_over_streamable_http() {
    let server = Listening::interop_server();
    let target = Target::Http(&server);
    check_initialize(&target, &[], &LEGACY_VERSIONS);
    check_tools_list(&target, &[]);
    check_add(&target, &[]);
}

#[test]
fn inspector_cli_lists_and_calls_over_stdio() {
    let target = Target::Stdio;
    check_initialize(&target, &[], &LEGACY_VERSIONS);
    check_tools_list(&target, &[]);
    check_add(&target, &[]);
}

#[test]
fn inspector_cli_in_the_modern_era_over_streamable_http() {
    let server = Listening::interop_server();
    let target = Target::Http(&server);
    let era = ["--protocol-era", "auto"];
    check_initialize(&target, &era, &[MODERN_VERSION]);
    check_tools_list(&target, &era);
    check_add(&target, &era);
}

#[test]
fn inspector_cli_in_the_modern_era_over_stdio() {
    let target = Target::Stdio;
    let era = ["--protocol-era", "auto"];
    check_initialize(&target, &era, &[MODERN_VERSION]);
    check_tools_list(&target, &era);
    check_add(&target, &era);
}
