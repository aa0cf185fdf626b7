#!/usr/bin/env bash
# The three published crates, as `cargo publish` would send them, without
# sending them: each is packaged from its own files alone (the `include` of
# its Cargo.toml), and built from its package against the packages of the
# others (cargo >= 1.90 takes the workspace packages in dependency order and
# resolves them against each other through a local overlay, since none is on
# crates.io yet). --allow-dirty: this checks what the tree holds now,
# committed or not; a real publish is a separate, deliberate step
# (CONTRIBUTING.md, "Releasing").
#
# Before that, the crates' READMEs: nothing compiles their code blocks (they
# are not the rustdoc of any crate), so each Rust block there must be one
# that is compiled elsewhere: mcp-runtime's is the "Getting started" example
# of the repository README (a doc test of tests/docs), mcp-runtime-rules' is
# in the crate docs of mcp-rules/src/lib.rs (a doc test of that crate).
set -euo pipefail
cd "$(dirname "$0")/.."

# Prints each ```rust block of a Markdown file, one block per NUL-ended record.
rust_blocks() {
    awk '/^```rust/ { inside = 1; block = ""; next }
         /^```/ && inside { inside = 0; printf "%s%c", block, 0; next }
         inside { block = block $0 "\n" }' "$1"
}

# Every ```rust block of $1 occurs, line for line, in $2 (after stripping
# `//! ` from $2's lines, for crate docs).
check_blocks_in() {
    local readme="$1" source="$2" text block found=0
    text="$(sed -E 's@^//! ?@@' "$source")"
    while IFS= read -r -d '' block; do
        found=$((found + 1))
        if [[ "$text" != *"${block%$'\n'}"* ]]; then
            echo "error: a Rust block of $readme is not in $source, where it would be compiled:" >&2
            printf '%s' "$block" >&2
            exit 1
        fi
    done < <(rust_blocks "$readme")
    if [ "$found" = 0 ]; then
        echo "error: no Rust block found in $readme (expected at least one)" >&2
        exit 1
    fi
    echo "$readme: $found Rust block(s), each compiled as part of $source"
}
check_blocks_in mcp-runtime/README.md README.md
check_blocks_in mcp-rules/README.md mcp-rules/src/lib.rs

# Cargo prints each package's size ("Packaged N files, X (Y compressed)"; the
# compressed size is the upload, at most 10 MB on crates.io), and a warning
# for each integration test of mcp-runtime left out of its package.
cargo publish --dry-run --allow-dirty -p mcp-runtime-rules -p mcp-runtime-macros -p mcp-runtime

