#!/usr/bin/env bash
# cargo-deny on the workspace's dependency tree (deny.toml): the licenses of
# every crate, bans (duplicate versions are warnings, wildcard requirements
# errors) and sources (crates.io only). Installs cargo-deny from crates.io
# at the version below (--locked) when another or none is installed.
#
# Advisories are not checked here: cargo-deny fetches the RustSec advisory
# database from GitHub, which CI's machine cannot reach (it reaches the
# package registries only); see deny.toml.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_DENY_VERSION=0.20.2   # builds on Rust 1.95 (it needs 1.88)

have="$(cargo deny --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have" = "$CARGO_DENY_VERSION" ]; then
    echo "cargo-deny $CARGO_DENY_VERSION is installed"
else
    echo "installing cargo-deny $CARGO_DENY_VERSION (found: ${have:-none})"
    cargo install cargo-deny --locked --version "$CARGO_DENY_VERSION"
fi

# --hide-inclusion-graph: a duplicate's warning names its versions, without
# the tree of every path to each (hundreds of lines; `cargo tree -i` shows it).
cargo deny --locked check --hide-inclusion-graph licenses bans sources
