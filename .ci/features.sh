#!/usr/bin/env bash
# Every Cargo feature of mcp-runtime builds alone and together, without a
# warning: the library checked with no features, with each feature alone
# and in the pairs that work together, with the defaults and with all of
# them, under clippy -D warnings (so an
# import left unused by a narrow set of features fails here).
#
#   bash .ci/features.sh
set -euo pipefail
cd "$(dirname "$0")/.."

features=(server client stdio http auth redis tasks)
sets=("--no-default-features")
# Each feature with what it works with: the stdio server of bench/weight
# (the smallest server, without tasks), an HTTP server, a protected one, a
# client that signs in, and each side with its tasks.
for pair in server,stdio server,http server,auth client,auth server,tasks client,tasks; do
    sets+=("--no-default-features --features $pair")
done
for feature in "${features[@]}"; do
    sets+=("--no-default-features --features $feature")
done
sets+=("" "--all-features")

for set in "${sets[@]}"; do
    echo "features: ${set:-(default)}" >&2
    # shellcheck disable=SC2086 # the set is several arguments
    cargo clippy -p mcp-runtime --lib --quiet $set -- -D warnings
done

# A #[tool] server on `server` + `stdio` alone (bench/weight/ours): the code
# the macros generate reaches the runtime through `__private` with no other
# feature (not `tasks` either). A workspace of its own, built into this
# one's target directory.
echo "features: server,stdio, a #[tool] server (bench/weight/ours)" >&2
cargo clippy --quiet --manifest-path bench/weight/ours/Cargo.toml \
    --target-dir "${CARGO_TARGET_DIR:-$PWD/target}" -- -D warnings
