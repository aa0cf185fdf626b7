//! Expansion snapshots: `tests/expand/<macro>.rs` expands to the
//! `.expanded.rs` beside it (macrotest, through `cargo expand`).
//!
//! `cargo expand` output changes between its versions, so the snapshots
//! belong to the one pinned in `CARGO_EXPAND_VERSION`. The test installs it
//! on first use (`install-tools.sh`: `cargo install --locked` from
//! crates.io, skipped when that version is already there), as the
//! conformance and interop tests install their peers. Locally a missing
//! snapshot is written and a changed one fails (`MACROTEST=overwrite`
//! rewrites it); with `CI` set a missing snapshot fails too.

#![allow(clippy::panic)]

use std::path::Path;
use std::process::Command;

/// Installs the pinned `cargo expand` unless it is already installed.
fn ensure_cargo_expand() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("install-tools.sh");
    let status = Command::new("bash")
        .arg(&script)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        status.success(),
        "{} failed ({status}): the expansion snapshots need cargo-expand at the pinned version",
        script.display()
    );
}

#[test]
fn expand() {
    ensure_cargo_expand();
    if std::env::var_os("CI").is_some() {
        macrotest::expand_without_refresh("tests/expand/*.rs");
    } else {
        macrotest::expand("tests/expand/*.rs");
    }
}
