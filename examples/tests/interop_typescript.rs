//! Interoperability with the official MCP TypeScript SDK (`@modelcontextprotocol/client`
//! and `@modelcontextprotocol/server`, pinned in `tests/interop/typescript/package.json`),
//! both directions, over streamable HTTP on 127.0.0.1:
//!
//! - the SDK's client (`tests/interop/typescript/client.mjs`) drives our `interop-server`
//!   through its two input-required rounds and its input-required prompt, answering
//!   through the SDK's own elicitation handler;
//! - our client (`mcp_runtime::client::Client`) drives a server written with the SDK
//!   (`tests/interop/typescript/server.mjs`) whose tool asks in two rounds, carrying the
//!   first answer in SDK-sealed `requestState`, and whose prompt asks once.
//!
//! `tests/interop/typescript/setup.sh` runs first (once per test process): it installs
//! Node 22 and the pinned packages under `.cache/` when they are missing, so a plain
//! `cargo test` needs nothing else (but network access on the first run).
//! Every wait is bounded; nothing asserts on timing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{Client, ClientError, Retry, Step};
use mcp_runtime::schema::{
    ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ElicitValue, InputRequest,
};
use serde_json::{Value, json};
use support::interop::{Harness, run_client};
use support::peer::Listening;

/// Bound for one request of our client to the SDK server, input rounds included.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// `tests/interop/typescript/`: Node 22 and the SDK packages, with copies of
/// the scripts next to their `node_modules`.
static TYPESCRIPT: Harness = Harness::npm(
    "typescript",
    "MCP_INTEROP_TYPESCRIPT_DIR",
    &["client.mjs", "server.mjs"],
);

// ---------------------------------------------------------------------------------------------
// A: the TypeScript SDK client drives our interop-server
// ---------------------------------------------------------------------------------------------

/// The `asked` entries of a `client.mjs` summary section: (key, field names).
fn asked_of(section: &Value) -> Vec<(String, Vec<String>)> {
    section["asked"]
        .as_array()
        .unwrap_or_else(|| panic!("no asked list in {section}"))
        .iter()
        .map(|entry| {
            let key = entry["key"].as_str().unwrap_or_default().to_owned();
            let fields = entry["requestedSchema"]["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            (key, fields)
        })
        .collect()
}

#[test]
fn typescript_client_drives_our_server_through_input_required_rounds() {
    let mut client = TYPESCRIPT.command("client.mjs");
    let server = Listening::interop_server();
    client.arg(&server.url);
    let (summary, _) = run_client("client.mjs", client, Some(&server));

    assert_eq!(summary["protocolVersion"], "2026-07-28", "{summary:#}");

    let tool = &summary["tool"];
    assert_eq!(
        tool["text"], "Booked Chez Rust for 4, late sitting.",
        "{summary:#}"
    );
    assert_eq!(tool["isError"], false, "{summary:#}");
    assert_eq!(tool["handlerCalls"], 2, "{summary:#}");
    assert_eq!(
        asked_of(tool),
        [
            ("guests".to_owned(), vec!["guests".to_owned()]),
            ("sitting".to_owned(), vec!["sitting".to_owned()]),
        ],
        "{summary:#}"
    );
    let guests = &tool["asked"][0]["requestedSchema"]["properties"]["guests"];
    assert_eq!(
        (&guests["type"], &guests["minimum"], &guests["maximum"]),
        (&json!("integer"), &json!(1), &json!(12)),
        "{summary:#}"
    );
    assert_eq!(
        tool["asked"][1]["requestedSchema"]["properties"]["sitting"]["enum"],
        json!(["early", "late"]),
        "{summary:#}"
    );

    let prompt = &summary["prompt"];
    assert_eq!(prompt["messages"], 1, "{summary:#}");
    assert_eq!(prompt["role"], "user", "{summary:#}");
    assert_eq!(prompt["text"], "Write a haiku about rust.", "{summary:#}");
    assert_eq!(prompt["handlerCalls"], 1, "{summary:#}");
    assert_eq!(
        asked_of(prompt),
        [("topic".to_owned(), vec!["topic".to_owned()])],
        "{summary:#}"
    );
}

// ---------------------------------------------------------------------------------------------
// B: our client drives a TypeScript SDK server
// ---------------------------------------------------------------------------------------------

/// Spawns `server.mjs` on a free port of 127.0.0.1.
fn spawn_sdk_server() -> Listening {
    let server = Listening::spawn(TYPESCRIPT.command("server.mjs"));
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "unexpected URL {}",
        server.url
    );
    server
}

/// What our elicitation handler was asked, in order: (message, field names).
type Asked = Arc<Mutex<Vec<(String, Vec<String>)>>>;

/// The form's field names, in schema order.
fn fields_of(params: &ElicitRequestFormParams) -> Vec<String> {
    let schema = serde_json::to_value(&params.requested_schema).unwrap();
    schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Answers every form by its single field: nights 3, transport train, subject crabs.
fn answer(params: &ElicitRequestFormParams) -> ElicitResult {
    let fields = fields_of(params);
    let (field, value) = match fields.as_slice() {
        [f] if f == "nights" => (f, ElicitValue::Number(3.into())),
        [f] if f == "transport" => (f, ElicitValue::String("train".into())),
        [f] if f == "subject" => (f, ElicitValue::String("crabs".into())),
        _ => return ElicitResult::decline(),
    };
    ElicitResult::accept([(field.clone(), value)].into_iter().collect())
}

async fn our_client(url: &str, asked: &Asked) -> Client {
    let asked = Arc::clone(asked);
    Client::http(url)
        .on_elicit_form(move |params| {
            let asked = Arc::clone(&asked);
            async move {
                asked
                    .lock()
                    .unwrap()
                    .push((params.message.clone(), fields_of(&params)));
                answer(&params)
            }
        })
        .connect()
        .await
        .expect("connect to the SDK server")
}

async fn bounded<T>(call: impl Future<Output = T>) -> T {
    tokio::time::timeout(CALL_TIMEOUT, call)
        .await
        .unwrap_or_else(|_| panic!("no answer from the SDK server within {CALL_TIMEOUT:?}"))
}

fn trip_args() -> Option<serde_json::Map<String, Value>> {
    json!({"city": "Lisbon"}).as_object().cloned()
}

#[tokio::test]
async fn our_client_fulfils_a_typescript_server_tool_and_prompt() {
    let server = spawn_sdk_server();
    let asked = Asked::default();
    let client = our_client(&server.url, &asked).await;

    let trip = bounded(client.call_tool("plan_trip", trip_args()))
        .await
        .unwrap_or_else(|e| panic!("plan_trip failed: {e}\nserver log:\n{}", server.logs()));
    let trip = serde_json::to_value(&trip).unwrap();
    assert_eq!(
        trip["content"],
        json!([{"type": "text", "text": "Trip to Lisbon: 3 nights, by train."}]),
        "{trip:#}"
    );
    assert_ne!(trip["isError"], true, "{trip:#}");
    assert_eq!(
        *asked.lock().unwrap(),
        [
            (
                "How many nights in Lisbon?".to_owned(),
                vec!["nights".to_owned()]
            ),
            (
                "3 nights in Lisbon: train or plane?".to_owned(),
                vec!["transport".to_owned()]
            ),
        ],
        "our handler should run once per round"
    );

    asked.lock().unwrap().clear();
    let limerick = bounded(client.get_prompt("limerick", None))
        .await
        .unwrap_or_else(|e| panic!("limerick failed: {e}\nserver log:\n{}", server.logs()));
    let limerick = serde_json::to_value(&limerick).unwrap();
    let expected = json!([{
        "role": "user",
        "content": {"type": "text", "text": "Write a limerick about crabs."},
    }]);
    assert_eq!(limerick["messages"], expected, "{limerick:#}");
    assert_eq!(
        *asked.lock().unwrap(),
        [(
            "What should the limerick be about?".to_owned(),
            vec!["subject".to_owned()]
        )],
        "our handler should run once"
    );
}

#[tokio::test]
async fn manual_mode_sees_the_typescript_servers_input_required_results() {
    let server = spawn_sdk_server();
    let asked = Asked::default();
    let client = our_client(&server.url, &asked).await;

    // Round 1, raw: one form-mode elicitation under `nights`, plus sealed state.
    let Step::InputRequired(first) =
        bounded(client.call_tool_once("plan_trip", trip_args(), &Retry::none()))
            .await
            .unwrap_or_else(|e| panic!("round 1 failed: {e}\nserver log:\n{}", server.logs()))
    else {
        panic!("round 1 should be input_required");
    };
    let requests = first.input_requests.as_ref().expect("inputRequests");
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["nights"]);
    let Some(InputRequest::Elicitation(ElicitRequestParams::Form(form))) = requests.get("nights")
    else {
        panic!("nights should be a form-mode elicitation: {requests:?}");
    };
    assert_eq!(form.message, "How many nights in Lisbon?");
    let nights = serde_json::to_value(&form.requested_schema).unwrap();
    assert_eq!(
        nights["properties"]["nights"]["type"], "integer",
        "{nights}"
    );
    assert_eq!(nights["properties"]["nights"]["minimum"], 1, "{nights}");
    assert_eq!(nights["properties"]["nights"]["maximum"], 14, "{nights}");
    let state = first.request_state.clone().expect("requestState");
    assert!(!state.is_empty());
    assert!(
        asked.lock().unwrap().is_empty(),
        "manual mode runs no handler by itself"
    );

    // Round 2, raw: our handler answers round 1; the server asks `transport` with new state.
    let answers = bounded(client.fulfil(&first)).await.unwrap();
    assert_eq!(answers.keys().collect::<Vec<_>>(), ["nights"]);
    assert_eq!(
        answers["nights"],
        json!({"action": "accept", "content": {"nights": 3}})
    );
    let Step::InputRequired(second) = bounded(client.call_tool_once(
        "plan_trip",
        trip_args(),
        &Retry::answering(&first, answers),
    ))
    .await
    .unwrap_or_else(|e| panic!("round 2 failed: {e}\nserver log:\n{}", server.logs())) else {
        panic!("round 2 should be input_required");
    };
    assert_eq!(
        second
            .input_requests
            .as_ref()
            .expect("inputRequests")
            .keys()
            .collect::<Vec<_>>(),
        ["transport"]
    );
    assert_ne!(
        second.request_state.as_deref(),
        Some(state.as_str()),
        "state should move on"
    );

    // The SDK's request-state protection refuses state that is not byte-exact, with
    // -32602 and its documented `data.reason`.
    let tampered = Retry {
        input_responses: None,
        request_state: Some(format!("{state}x")),
    };
    let refused = bounded(client.call_tool_once("plan_trip", trip_args(), &tampered)).await;
    match refused {
        Err(ClientError::Protocol(error)) => {
            assert_eq!(error.code, -32602, "{error:?}");
            let reason = error.data.as_ref().and_then(|d| d.get("reason"));
            assert_eq!(reason, Some(&json!("invalid_request_state")), "{error:?}");
        }
        other => panic!("tampered requestState should be refused with -32602, got {other:?}"),
    }
}
