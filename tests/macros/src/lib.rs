//! Tests of the `mcp-runtime-macros` procedural macros, used through `mcp-runtime`:
//!
//! - `tests/ui.rs`: compile-fail cases and their diagnostics (trybuild),
//!   checked only on the rustc that wrote the `.stderr` snapshots;
//! - `tests/expand.rs`: expansion snapshots (macrotest and `cargo expand`,
//!   whose version is pinned in `CARGO_EXPAND_VERSION`; run
//!   `install-tools.sh` to install it);
//! - `tests/hygiene.rs`: the expansion resolves nothing relative to the
//!   caller (shadowed prelude names, a local `mod mcp_runtime`, `crate = ".."`);
//! - `tests/lints.rs`: the expansion is clean under strict lints.
//!
//! This library is empty; everything lives in `tests/`.
