#!/usr/bin/env bash
# cargo-deny on the workspace's dependency tree (deny.toml): the licenses of
# every crate, bans (duplicate versions are warnings, wildcard requirements
# errors) and sources (crates.io only). Installs cargo-deny from crates.io
# at the version below (--locked) when another or none is installed.
#
# Advisories need the RustSec advisory database, which cargo-deny fetches
# from GitHub, and CI's machine reaches the package registries only. So
# they are checked when a copy of the database is at hand: set
# ADVISORY_DB to a git checkout of github.com/rustsec/advisory-db, and
# they are checked offline against it (with its date printed); without
# it, they are skipped with a line saying so. See deny.toml.
#
#   ADVISORY_DB=~/advisory-db bash .ci/deny.sh
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

if [ -z "${ADVISORY_DB:-}" ]; then
    echo "advisories skipped: set ADVISORY_DB to a checkout of rustsec/advisory-db to check them"
    exit 0
fi
# cargo-deny reads the database from a directory named after its URL,
# under a db-path of our choosing: a scratch copy of deny.toml points there.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
ln -s "$(cd "$ADVISORY_DB" && pwd)" "$scratch/advisory-db-3157b0e258782691"
sed "s|^\[advisories\]|[advisories]\ndb-path = \"$scratch\"|" deny.toml >"$scratch/deny.toml"
echo "advisories: the database as of $(git -C "$ADVISORY_DB" log -1 --format=%cI)"
cargo deny --offline --locked --config "$scratch/deny.toml" check --hide-inclusion-graph advisories
