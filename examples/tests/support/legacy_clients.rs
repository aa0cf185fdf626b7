//! What the tests in which a 2025-era SDK client (`tests/interop/python-v1/`,
//! `tests/interop/typescript-v1/`) drives our `interop-server` share: running
//! the client script and checking the JSON summary it prints.
//!
//! Both scripts print the same summary keys (see their header comments):
//! `initialize`, `protocolVersion`, `listed`, `add`, `tool`, `prompt`,
//! `declined`, `noElicitation`, `ping`, over HTTP `sessionEnd`, and
//! `problems`, the mismatches the script itself found.
#![allow(unreachable_pub)]

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::process::run_bounded;

/// The versions a 2025-era session may be negotiated at.
pub const LEGACY_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// Bound for one run of a client script (which bounds itself at 60 s).
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(120);

/// The `interop-server` binary.
pub fn interop_server() -> &'static str {
    env!("CARGO_BIN_EXE_interop-server")
}

/// Runs the client script `command` (bounded), asserts that it exited 0 and
/// printed a JSON summary, and returns the summary with a description of the
/// run (its output and `server_logs`) for assertion messages.
pub fn run_client(
    what: &str,
    command: Command,
    server_logs: &dyn Fn() -> String,
) -> (Value, String) {
    let output = run_bounded(command, CLIENT_TIMEOUT);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let context = format!(
        "{what} stdout:\n{stdout}\n{what} stderr:\n{stderr}\ninterop-server stderr:\n{}",
        server_logs()
    );
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{context}",
        output.status
    );
    let summary: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{what} did not print a JSON summary ({e}):\n{context}"));
    (summary, context)
}

/// The facts every run must show, over either transport.
pub fn check_summary(summary: &Value, context: &str) {
    assert_eq!(summary["problems"], json!([]), "{context}");

    let version = summary["protocolVersion"].as_str().unwrap_or_default();
    assert!(
        LEGACY_VERSIONS.contains(&version),
        "negotiated {version:?}, expected one of {LEGACY_VERSIONS:?}:\n{context}"
    );
    let initialize = &summary["initialize"];
    assert_eq!(initialize["protocolVersion"], version, "{context}");
    assert_eq!(
        initialize["serverInfo"]["name"], "interop-server",
        "{context}"
    );
    assert!(
        initialize["capabilities"]["tools"].is_object()
            && initialize["capabilities"]["prompts"].is_object(),
        "initialize must declare tools and prompts:\n{context}"
    );

    assert_eq!(
        summary["listed"],
        json!({"tools": ["add", "book_table"], "prompts": ["haiku"]}),
        "{context}"
    );
    assert_eq!(summary["add"]["texts"], json!(["5"]), "{context}");
    assert_eq!(summary["add"]["isError"], false, "{context}");

    let tool = &summary["tool"];
    assert_eq!(
        tool["texts"],
        json!(["Booked Chez Rust for 4, late sitting."]),
        "{context}"
    );
    assert_eq!(tool["isError"], false, "{context}");
    assert_eq!(
        tool["elicitations"], 2,
        "the elicitation callback runs once per round:\n{context}"
    );
    assert_eq!(
        tool["asked"][1]["message"], "A table for 4: which sitting?",
        "the second round must know the first answer:\n{context}"
    );

    assert_eq!(
        summary["prompt"]["messages"],
        json!([{"role": "user", "text": "Write a haiku about rust."}]),
        "{context}"
    );
    assert_eq!(summary["prompt"]["elicitations"], 1, "{context}");

    assert_eq!(
        summary["declined"]["texts"],
        json!(["No table booked."]),
        "{context}"
    );
    assert_eq!(summary["declined"]["elicitations"], 1, "{context}");

    let refused = &summary["noElicitation"];
    assert_eq!(
        refused["isError"], true,
        "a client without the elicitation capability gets an error result:\n{context}"
    );
    let text = refused["text"].as_str().unwrap_or_default();
    assert!(
        text.to_lowercase().contains("elicitation"),
        "the error result should say that elicitation is missing, says {text:?}:\n{context}"
    );

    assert_eq!(summary["ping"], true, "{context}");
}

/// Over HTTP: the client ended its session with DELETE, and the server then
/// refused the ended session id with 404.
pub fn check_session_end(summary: &Value, context: &str) {
    let ended = &summary["sessionEnd"];
    assert!(
        ended["sessionId"].as_str().is_some_and(|id| !id.is_empty()),
        "the server opened no session:\n{context}"
    );
    let status = ended["status"].as_u64().unwrap_or_default();
    assert!(
        (200..300).contains(&status),
        "DELETE of the session answered {status}:\n{context}"
    );
    assert_eq!(
        ended["afterEnd"]["status"], 404,
        "a request with an ended session id must get 404:\n{context}"
    );
}
