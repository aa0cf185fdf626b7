#!/usr/bin/env bash
# Semver check of the published crates against their latest release on
# crates.io, with cargo-semver-checks at the version below (installed from
# crates.io, --locked, when another or none is installed). Run it before
# every release (CONTRIBUTING.md, "Releasing"): a breaking change needs a new
# major version (a new minor while we are at 0.x).
#
# Until mcp-runtime has a release there is no baseline to compare with: the
# script says so and exits 0 without installing anything. It is not part of
# .ci/run for that reason (installing the tool costs minutes); add it there
# once 0.1.0 is out.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_SEMVER_CHECKS_VERSION=0.51.0   # builds on Rust 1.95 (it needs 1.93)

if ! cargo info --registry crates-io mcp-runtime >/dev/null 2>&1; then
    # Tell "not published" apart from "crates.io unreachable".
    if ! cargo info --registry crates-io serde >/dev/null 2>&1; then
        echo "error: crates.io cannot be reached (cargo info serde failed)" >&2
        exit 1
    fi
    echo "mcp-runtime is not on crates.io yet: no published baseline to check against, nothing to do"
    exit 0
fi

have="$(cargo semver-checks --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have" != "$CARGO_SEMVER_CHECKS_VERSION" ]; then
    echo "installing cargo-semver-checks $CARGO_SEMVER_CHECKS_VERSION (found: ${have:-none})"
    cargo install cargo-semver-checks --locked --version "$CARGO_SEMVER_CHECKS_VERSION"
fi

# Each library against its newest version on crates.io (the default
# baseline), with the features cargo-semver-checks enables by default (all
# but those named like unstable or nightly). mcp-runtime-macros is left out:
# the tool reads a crate's rustdoc JSON, where a proc-macro crate has only
# the macros' names, and a removed or renamed macro already shows in
# mcp-runtime, which re-exports each one.
cargo semver-checks check-release -p mcp-runtime-rules -p mcp-runtime
