//! What the tests in which a 2025-era SDK client (`tests/interop/python-v1/`,
//! `tests/interop/typescript-v1/`) drives our `interop-server` share: running
//! the client script over either transport and checking the JSON summary it
//! prints.
//!
//! Both scripts print the same summary keys (see their header comments):
//! `initialize`, `protocolVersion`, `listed`, `add`, `tool`, `prompt`,
//! `declined`, `noElicitation`, `ping`, `urlStep`, over HTTP `sessionEnd`, and
//! `problems`, the mismatches the script itself found.

use std::process::Command;

use serde_json::{Value, json};

use super::interop::{interop_server_bin, run_client};
use super::peer::Listening;

/// The versions a 2025-era session may be negotiated at.
pub const LEGACY_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// Runs the client script `client` (named `what` in messages) against an
/// `interop-server` of its own over streamable HTTP (`--url URL`) and checks
/// its summary, the end of its session included.
pub fn check_over_http(what: &str, mut client: Command) {
    let server = Listening::interop_server();
    client.args(["--url", &server.url]);
    let (summary, context) = run_client(what, client, Some(&server));
    assert_eq!(summary["transport"], "streamable-http", "{context}");
    check_summary(&summary, &context);
    check_session_end(&summary, &context);
}

/// Runs the client script `client` (named `what` in messages) over stdio
/// (`--stdio -- interop-server --stdio`: the script spawns the server) and
/// checks its summary.
pub fn check_over_stdio(what: &str, mut client: Command) {
    client.args(["--stdio", "--", interop_server_bin(), "--stdio"]);
    // Over stdio the server's stderr is the client's: it is in the context.
    let (summary, context) = run_client(what, client, None);
    assert_eq!(summary["transport"], "stdio", "{context}");
    check_summary(&summary, &context);
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
        json!({"tools": ["add", "book_table", "checkout"], "prompts": ["haiku"]}),
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

    // A URL step: asked once with an elicitationId, announced complete
    // under that id, then paid.
    let paid = &summary["urlStep"];
    assert_eq!(paid["texts"], json!(["Paid 40 EUR."]), "{context}");
    assert_eq!(paid["isError"], false, "{context}");
    let asked = paid["asked"].as_array().cloned().unwrap_or_default();
    assert_eq!(asked.len(), 1, "one URL-mode request:\n{context}");
    assert_eq!(asked[0]["mode"], "url", "{context}");
    assert!(
        asked[0]["url"]
            .as_str()
            .is_some_and(|url| url.starts_with("https://pay.example.com/checkout/")),
        "{context}"
    );
    let id = asked[0]["elicitationId"].as_str().unwrap_or_default();
    assert!(
        !id.is_empty(),
        "the request names its elicitation:\n{context}"
    );
    assert_eq!(
        paid["completed"],
        json!([id]),
        "notifications/elicitation/complete, once, for that id:\n{context}"
    );
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
