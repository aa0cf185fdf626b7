//! The official suite's client scenarios (2026-07-28, those that need no
//! authorization server) against this build of `conformance-client`, via
//! `tests/conformance/run-client.sh` (which installs the pinned suite).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

#[test]
fn client_conformance_scenarios_pass() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("conformance-client");
    let output = Command::new("bash")
        .arg(repo.join("tests/conformance/run-client.sh"))
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
    assert!(
        stdout.contains("conformance-client: 7 passed, 0 failed"),
        "unexpected summary:\n{stdout}"
    );
}
