#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (default 60 s each) from the
# committed seeds; new inputs go to a scratch corpus, never into the repo.
# Needs the nightly toolchain and cargo-fuzz (installed here if missing).
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH="${FUZZ_SECONDS:-60}"
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked --version 0.13.2
fi
for target in verify_state dispatch_tools_call http_request; do
    scratch="corpus/$target"
    mkdir -p "$scratch"
    echo "fuzz: $target for ${SECONDS_EACH}s"
    cargo +nightly fuzz run "$target" "$scratch" "seeds/$target" -- \
        -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -print_final_stats=1 2>&1 | tail -n 12
done
echo "fuzz: all targets ran clean"
