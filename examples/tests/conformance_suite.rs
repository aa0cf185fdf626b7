//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in `tests/conformance/run.sh`) against this build of
//! `conformance-server`. The script installs Node 22 and the suite from the
//! npm registry on first use and fails unless every scenario listed in
//! `tests/conformance/required.txt` passes with no FAILURE check.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;
use std::process::Command;

#[test]
fn required_conformance_scenarios_pass() {
    let server = support::HttpServer::spawn();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("conformance");
    let output = Command::new("bash")
        .arg(repo.join("tests/conformance/run.sh"))
        .env("MCP_CONFORMANCE_SERVER_URL", &server.url)
        .env("MCP_CONFORMANCE_OUT", &out)
        .output()
        .expect("bash runs tests/conformance/run.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "required conformance scenarios failed ({}):\n{stdout}\n{stderr}\nserver log:\n{}",
        output.status,
        server.logs()
    );
    assert!(
        stdout.contains("conformance: ") && stdout.contains(" passed, 0 failed"),
        "the script printed no summary line:\n{stdout}"
    );
}
