//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in `tests/conformance/run.sh`) against this build of
//! `conformance-server`, once per spec revision it serves: 2026-07-28
//! (stateless) and 2025-11-25 (the legacy `initialize` sessions). The script
//! installs Node 22 and the suite from the npm registry on first use and
//! fails unless every scenario listed in the revision's required list
//! (`tests/conformance/required.txt`, `required-2025-11-25.txt`) passes with
//! no FAILURE check.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;
use std::process::Command;
use std::sync::{Mutex, PoisonError};

/// One suite at a time: both share the installed suite, and timing-sensitive
/// scenarios (SSE streams, notifications) should not compete for the CPU.
static SUITE: Mutex<()> = Mutex::new(());

/// Runs `tests/conformance/run.sh --spec-version <spec_version>` against a
/// fresh server, with its results in `<tmp>/<out>`, and checks that every
/// required scenario passed.
fn required_scenarios_pass(spec_version: &str, out: &str) -> String {
    let _one_at_a_time = SUITE.lock().unwrap_or_else(PoisonError::into_inner);
    // The suite's task scenarios all come from 127.0.0.1: one
    // unauthenticated client, whose allowance (20 tasks by default) they
    // would use up.
    let server = support::HttpServer::spawn_with(&["--task-client-cap", "1000"]);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(out);
    let output = Command::new("bash")
        .arg(repo.join("tests/conformance/run.sh"))
        .args(["--spec-version", spec_version])
        .env("MCP_CONFORMANCE_SERVER_URL", &server.url)
        .env("MCP_CONFORMANCE_OUT", &out)
        .output()
        .expect("bash runs tests/conformance/run.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "required {spec_version} conformance scenarios failed ({}):\n{stdout}\n{stderr}\n\
         server log:\n{}",
        output.status,
        server.logs()
    );
    assert!(
        stdout.contains("conformance: ") && stdout.contains(" passed, 0 failed"),
        "the script printed no summary line:\n{stdout}"
    );
    stdout.into_owned()
}

#[test]
fn required_conformance_scenarios_pass() {
    let stdout = required_scenarios_pass("2026-07-28", "conformance");
    // Every scenario of the pinned suite, the tasks extension's included.
    assert!(
        stdout.contains("All scenarios run: 50/50 passed; scored: 37/37 passed."),
        "not every 2026-07-28 scenario passed:\n{stdout}"
    );
}

#[test]
fn required_2025_11_25_conformance_scenarios_pass() {
    required_scenarios_pass("2025-11-25", "conformance-2025-11-25");
}
