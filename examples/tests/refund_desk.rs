//! `cargo run --example refund_desk` runs to completion and prints what the
//! example promises: the tool's two rounds (and the form asked again
//! naming the field), the tool's failure on a second refund of one order,
//! the prompt asking for its missing argument, and the resource behind a
//! URL-mode sign-in, accepted and declined.
//!
//! Cargo gives a test no path to an example, so the test runs it through
//! `cargo run` (the `CARGO` that builds the test), with the test's profile.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::process::Command;
use std::time::Duration;

use support::process::{profile, repo, run_bounded};

/// Enough to build the example from cold on a slow machine, and to run it.
const LIMIT: Duration = Duration::from_secs(600);

#[test]
fn the_refund_desk_example_runs_to_completion() {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(repo())
        .args(["run", "--quiet", "-p", "mcp-examples", "--example"])
        .arg("refund_desk")
        .args(["--profile", &profile()])
        .env("RUST_LOG", "warn");
    let output = run_bounded(command, LIMIT);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the example failed ({}):\n{stdout}\n{stderr}",
        output.status
    );

    for expected in [
        // 1. Two rounds: the details, then the confirmation.
        r#""message":"Refund 40 EUR for order A-1001?""#,
        "Refunded 40 EUR for order A-1001 (40 EUR refunded in all).",
        // 2. An invalid answer: the same form again, naming the field.
        r#""message":"Amount (EUR): must be at most 500, got 900. Why, and how much?""#,
        "Refunded 25 EUR for order B-2002 (65 EUR refunded in all).",
        // 3. The shared ledger: a second refund fails as a tool error.
        r#""text":"Order A-1001 was refunded already."}],"isError":true"#,
        // 4. The prompt asks for its missing argument.
        r#""message":"Which order is the apology for?""#,
        "Write a short apology to the customer of order A-1001, whose parcel arrived damaged.",
        // 5. The resource: URL mode, then the ledger at the URI read.
        r#""mode":"url","message":"Sign in as an auditor to read the ledger.""#,
        r#""uri":"desk://ledger","mimeType":"text/plain","text":"A-1001  40 EUR  arrived damaged\nB-2002  25 EUR  arrived late\n""#,
        // 6. Declined: a JSON-RPC error with the resource's message.
        "server -> server error -32602: The ledger is for signed-in auditors only.",
    ] {
        assert!(
            stdout.contains(expected),
            "missing {expected:?} in the output:\n{stdout}\n{stderr}"
        );
    }
    // Every question the server asked was answered: 2 + 3 + 0 + 1 + 1 + 1.
    assert_eq!(stdout.matches("   server asks ").count(), 8, "{stdout}");
    assert_eq!(stdout.matches("   client answers ").count(), 8, "{stdout}");
}
