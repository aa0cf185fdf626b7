#!/usr/bin/env bash
# The library crates and the `mcp` command build on the Rust version the
# workspace declares (`rust-version` in Cargo.toml's [workspace.package]),
# with every feature. While that version is also the stable toolchain this
# repeats what clippy checked; it starts to matter when stable moves on and
# a newer API or language feature creeps in.
set -euo pipefail
cd "$(dirname "$0")/.."

declared="$(sed -nE 's/^rust-version *= *"([0-9.]+)".*/\1/p' Cargo.toml | head -1)"
if [ -z "$declared" ]; then
    echo "error: no rust-version in Cargo.toml's [workspace.package]" >&2
    exit 1
fi
# "1.95" means 1.95.0: the oldest compiler the declaration admits.
toolchain="$declared"
[[ "$toolchain" =~ ^[0-9]+\.[0-9]+$ ]] && toolchain="$toolchain.0"

if rustup run "$toolchain" rustc --version >/dev/null 2>&1; then
    echo "Rust $toolchain is installed"
else
    rustup toolchain install "$toolchain" --profile minimal
fi

cargo "+$toolchain" check --locked --all-features \
    -p mcp-runtime-rules -p mcp-runtime-macros -p mcp-runtime -p mcp-cli
echo "mcp-runtime-rules, mcp-runtime-macros, mcp-runtime and mcp-cli build on Rust $toolchain"
