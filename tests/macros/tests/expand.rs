//! Expansion snapshots: `tests/expand/<macro>.rs` expands to the
//! `.expanded.rs` beside it (macrotest, through `cargo expand`).
//!
//! `cargo expand` output changes between its versions: install the pinned
//! one with `tests/macros/install-tools.sh` (version in
//! `CARGO_EXPAND_VERSION`). Locally a missing snapshot is written and a
//! changed one fails (`MACROTEST=overwrite` rewrites it); with `CI` set a
//! missing snapshot fails too.

#[test]
fn expand() {
    if std::env::var_os("CI").is_some() {
        macrotest::expand_without_refresh("tests/expand/*.rs");
    } else {
        macrotest::expand("tests/expand/*.rs");
    }
}
