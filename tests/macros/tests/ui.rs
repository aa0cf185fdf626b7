//! Compile-fail tests: each file under `tests/ui/<macro>/` misuses one
//! macro in one way, and its `.stderr` is what the user sees.
//!
//! Compiler output drifts between releases, so the snapshots are checked
//! only on the rustc that wrote them (as darling and clap do); on any other
//! the test prints a note and passes. Refresh them with
//! `TRYBUILD=overwrite cargo test -p mcp-macro-tests --test ui`, then read
//! every `.stderr`.

use std::io::Write as _;
use std::process::Command;

/// The rustc that wrote the `.stderr` snapshots.
const SNAPSHOT_RUSTC: &str = "1.95.0";

/// The version of the rustc cargo builds with (`$RUSTC`, else `rustc`),
/// e.g. `1.95.0` or `1.97.0-nightly`.
fn rustc_version() -> Option<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc).arg("--version").output().ok()?;
    let stdout = String::from_utf8(output.stdout).ok()?;
    stdout.split_whitespace().nth(1).map(str::to_owned)
}

#[test]
fn ui() {
    match rustc_version() {
        Some(version) if version == SNAPSHOT_RUSTC => {}
        other => {
            // Straight to stderr, past the test harness's capture.
            let _ = writeln!(
                std::io::stderr(),
                "note: skipping the UI tests: their snapshots are for rustc {SNAPSHOT_RUSTC}, this is {}",
                other.as_deref().unwrap_or("an unknown rustc")
            );
            return;
        }
    }
    let t = trybuild::TestCases::new();
    for dir in [
        "tool",
        "prompt",
        "resource",
        "completion",
        "handlers",
        "form",
        "choice",
    ] {
        t.compile_fail(format!("tests/ui/{dir}/*.rs"));
    }
}
