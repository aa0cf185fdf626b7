//! Questions asked in line (`ctx.ask(..).await?`), with the `oncall`
//! example's three-question `page_oncall` run as a process:
//! - over HTTP and over stdio, by a 2026-07-28 client and by a 2025-era
//!   client (the server asks it with `elicitation/create` and runs the
//!   handler again in process), and as a task;
//! - an invalid answer is asked again naming the field;
//! - the carried answers are signed: a tampered state is refused, and an
//!   earlier answer cannot be changed by sending it again;
//! - the carried answers are bounded.
//!
//! Every wait is bounded.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{Client, ClientBuilder, Era, Started};
use mcp_runtime::schema::{CallToolResult, ElicitRequestFormParams, ElicitResult, ElicitValue};
use serde_json::{Value, json};
use support::peer::Listening;
use support::process::example;

/// Bound on one whole test.
const TEST_TIMEOUT: Duration = Duration::from_secs(120);

/// The final text of the flow the scripted user plays.
const PAGED: &str = "Paged Ada at urgency 4: checkout is failing";

/// The example's server over HTTP on 127.0.0.1.
fn http_server() -> Listening {
    let mut command = Command::new(example("oncall"));
    command.args(["--http", "0"]);
    Listening::spawn(command)
}

/// A client of the example's server over stdio.
fn stdio_client() -> ClientBuilder {
    let exe = example("oncall");
    Client::stdio(exe.to_string_lossy(), ["--stdio"])
}

/// The questions a scripted user was asked, in order.
type Heard = Arc<Mutex<Vec<String>>>;

/// Registers the scripted user on `builder`: team payments, urgency 9
/// (refused: at most 5), then 4, then yes.
fn with_user(builder: ClientBuilder, heard: &Heard) -> ClientBuilder {
    let heard = Arc::clone(heard);
    builder.on_elicit_form(move |params: ElicitRequestFormParams| {
        let heard = Arc::clone(&heard);
        async move {
            heard.lock().unwrap().push(params.message.clone());
            let field = params.requested_schema.properties.keys().next().cloned();
            let value = match field.as_deref() {
                Some("team") => json!("payments"),
                Some("level") if params.message.starts_with("How urgent") => json!(9),
                Some("level") => json!(4),
                Some("ok") => json!(true),
                other => panic!("unexpected form {other:?}: {params:?}"),
            };
            let value: ElicitValue = serde_json::from_value(value).unwrap();
            ElicitResult::accept(BTreeMap::from([(field.unwrap(), value)]))
        }
    })
}

/// The text of a tool result's first content block.
fn text(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {value:#}"))
        .to_owned()
}

/// What the scripted user must have been asked, in order.
fn check_heard(heard: &Heard, context: &str) {
    let heard = heard.lock().unwrap().clone();
    assert_eq!(
        heard,
        [
            "Which team?",
            "How urgent?",
            "level: must be at most 5, got 9. How urgent?",
            "Page Ada (Payments) at urgency 4?",
        ],
        "{context}"
    );
}

/// Runs `page_oncall` to its end with `builder`'s client, checking the
/// result, the era found and the questions asked.
async fn page(builder: ClientBuilder, heard: &Heard, era: Era, context: &str) {
    let client = with_user(builder, heard).connect().await.unwrap();
    assert_eq!(client.era(), era, "{context}");
    let result = tokio::time::timeout(
        TEST_TIMEOUT,
        client.call_tool_with("page_oncall", &json!({"summary": "checkout is failing"})),
    )
    .await
    .unwrap_or_else(|_| panic!("{context}: no answer in time"))
    .unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_eq!(text(&result), PAGED, "{context}");
    check_heard(heard, context);
}

#[tokio::test]
async fn a_2026_client_over_http_and_stdio() {
    let server = http_server();
    let heard = Heard::default();
    page(
        Client::http(&server.url).pin_era(Era::Modern),
        &heard,
        Era::Modern,
        "2026-07-28 over HTTP",
    )
    .await;
    let heard = Heard::default();
    page(
        stdio_client().pin_era(Era::Modern),
        &heard,
        Era::Modern,
        "2026-07-28 over stdio",
    )
    .await;
}

#[tokio::test]
async fn a_2025_client_through_the_bridge_over_http_and_stdio() {
    let server = http_server();
    let heard = Heard::default();
    page(
        Client::http(&server.url).pin_era(Era::Legacy),
        &heard,
        Era::Legacy,
        "2025 over HTTP",
    )
    .await;
    let heard = Heard::default();
    page(
        stdio_client().pin_era(Era::Legacy),
        &heard,
        Era::Legacy,
        "2025 over stdio",
    )
    .await;
}

#[tokio::test]
async fn as_a_task() {
    let server = http_server();
    let heard = Heard::default();
    let client = with_user(Client::http(&server.url).tasks(), &heard)
        .connect()
        .await
        .unwrap();
    let started = tokio::time::timeout(
        TEST_TIMEOUT,
        client
            .tool_call("page_oncall")
            .arguments(&json!({"summary": "checkout is failing"}))
            .start(),
    )
    .await
    .expect("no answer in time")
    .unwrap();
    let Started::Task(task) = started else {
        panic!("page_oncall did not become a task: {started:?}");
    };
    let result = tokio::time::timeout(TEST_TIMEOUT, task.wait())
        .await
        .expect("the task did not finish in time")
        .unwrap();
    assert_eq!(text(&result), PAGED);
    check_heard(&heard, "as a task");
}

/// A raw 2026-07-28 client: one `tools/call` of `page_oncall` with the
/// round trip given, and its JSON-RPC response.
async fn raw_call(url: &str, round_trip: Value) -> Value {
    let mut params = json!({
        "name": "page_oncall",
        "arguments": {"summary": "checkout is failing"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1.0.0"}
        }
    });
    if let (Value::Object(params), Value::Object(extra)) = (&mut params, round_trip) {
        params.extend(extra);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let response = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "page_oncall")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    support::response_in_events(&text)
        .or_else(|| serde_json::from_str(&text).ok())
        .unwrap_or_else(|| panic!("not a JSON-RPC response: {text}"))
}

fn accept(key: &str, content: Value) -> Value {
    json!({ key: {"action": "accept", "content": content} })
}

/// The state and the keys asked by an `input_required` response.
fn asked(response: &Value) -> (String, Vec<String>) {
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{response:#}");
    let keys = result["inputRequests"]
        .as_object()
        .unwrap_or_else(|| panic!("no inputRequests in {response:#}"))
        .keys()
        .cloned()
        .collect();
    (result["requestState"].as_str().unwrap().to_owned(), keys)
}

#[tokio::test]
async fn the_carried_answers_are_signed_and_cannot_be_changed() {
    let server = http_server();
    let url = &server.url;
    let (state, keys) = asked(&raw_call(url, json!({})).await);
    assert_eq!(keys, ["team"]);
    let answered = json!({"requestState": state,
        "inputResponses": accept("team", json!({"team": "payments"}))});
    let (state, keys) = asked(&raw_call(url, answered).await);
    assert_eq!(keys, ["urgency"]);

    // One character changed anywhere in the state: refused, before the
    // handler runs, with the fixed message.
    let mut bytes = state.clone().into_bytes();
    let at = bytes.len() / 2;
    bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(bytes).unwrap();
    let refused = raw_call(
        url,
        json!({"requestState": tampered, "inputResponses": accept("urgency", json!({"level": 2}))}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused:#}");
    assert_eq!(
        refused["error"]["message"], "Invalid or expired \"requestState\"",
        "{refused:#}"
    );

    // The state carries the team: a different team sent again is ignored.
    let mut responses = accept("urgency", json!({"level": 2}));
    responses["team"] = json!({"action": "accept", "content": {"team": "search"}});
    let round = json!({"requestState": state, "inputResponses": responses});
    let asked_now = raw_call(url, round).await;
    let (state, keys) = asked(&asked_now);
    assert_eq!(keys, ["confirm"]);
    let message = &asked_now["result"]["inputRequests"]["confirm"]["params"]["message"];
    assert_eq!(message, "Page Ada (Payments) at urgency 2?");
    let done = raw_call(
        url,
        json!({"requestState": state, "inputResponses": accept("confirm", json!({"ok": true}))}),
    )
    .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Paged Ada at urgency 2: checkout is failing",
        "{done:#}"
    );
}

#[tokio::test]
async fn the_carried_answers_are_bounded() {
    let server = http_server();
    let url = &server.url;
    let (state, _) = asked(&raw_call(url, json!({})).await);
    // An accepted answer is carried as sent: 70 KB of `_meta` in it is more
    // than the 64 KiB the server carries by default.
    let padded = json!({"team": {"action": "accept", "content": {"team": "payments"},
        "_meta": {"pad": "x".repeat(70_000)}}});
    let refused = raw_call(
        url,
        json!({"requestState": state, "inputResponses": padded}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused:#}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("more than the 65536 this server keeps"),
        "{message}"
    );
    // The same answer without the padding goes on.
    let (_, keys) = asked(
        &raw_call(
            url,
            json!({"requestState": state,
                   "inputResponses": accept("team", json!({"team": "payments"}))}),
        )
        .await,
    );
    assert_eq!(keys, ["urgency"]);
}
