#!/usr/bin/env bash
# Installs the tools the macro tests need: `cargo expand` at the version in
# CARGO_EXPAND_VERSION (its output changes between versions, and the
# `.expanded.rs` snapshots are written by that one). Does nothing when that
# version is already installed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
want="$(tr -d '[:space:]' < "$here/CARGO_EXPAND_VERSION")"
have="$(cargo expand --version 2>/dev/null | awk '{print $2}' || true)"

if [ "$have" = "$want" ]; then
    echo "cargo-expand $want is installed"
    exit 0
fi
echo "installing cargo-expand $want (found: ${have:-none})"
cargo install cargo-expand --locked --version "$want"
