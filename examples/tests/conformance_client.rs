//! The official suite's client scenarios against this build of
//! `conformance-client`, via `tests/conformance/run-client.sh` (which
//! installs the pinned suite): the 32 scored of 2026-07-28 (25 of them
//! `auth/*`, signing in to the harness's authorization server) and the 18
//! scored of 2025-11-25 (14 `auth/*`), which the client reaches through a
//! 2025-era session after its `server/discover` probe fails; each set also
//! runs the 2 client-credentials extension scenarios.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;
use std::sync::{Mutex, PoisonError};

/// One set at a time: `sse-retry` measures the client's reconnection delay.
static SUITE: Mutex<()> = Mutex::new(());

/// Runs the scenarios of `spec_version` and checks that all `expected` passed.
fn scenarios_pass(spec_version: &str, expected: usize) {
    let _one_at_a_time = SUITE.lock().unwrap_or_else(PoisonError::into_inner);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("conformance-client");
    let output = Command::new("bash")
        .arg(repo.join("tests/conformance/run-client.sh"))
        .args(["--spec-version", spec_version])
        .arg(env!("CARGO_BIN_EXE_conformance-client"))
        .env("MCP_CONFORMANCE_OUT", &out)
        .output()
        .expect("bash runs tests/conformance/run-client.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "client conformance scenarios failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let summary = format!("conformance-client ({spec_version}): {expected} passed, 0 failed");
    assert!(stdout.contains(&summary), "unexpected summary:\n{stdout}");
}

#[test]
fn client_scenarios_of_2026_07_28_pass() {
    scenarios_pass("2026-07-28", 34);
}

#[test]
fn client_scenarios_of_2025_11_25_pass() {
    scenarios_pass("2025-11-25", 20);
}
