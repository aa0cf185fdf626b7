//! Interoperability with the official MCP Python SDK (`mcp`, pinned in
//! `tests/interop/python/requirements.txt`), in both directions, over
//! streamable HTTP on 127.0.0.1:
//!
//! - the SDK's client (`tests/interop/python/client.py`) drives our
//!   `interop-server` through its two-round `book_table` tool and its
//!   `haiku` prompt, answering every input request in its elicitation
//!   callback;
//! - our client (`mcp_runtime::client::Client`) drives a server written with
//!   the SDK (`tests/interop/python/server.py`) through its two-round
//!   `plan_trip` tool and its `greeting` prompt, automatically and by hand.
//!
//! `tests/interop/python/setup.sh` runs first (once per test binary) and
//! installs the SDK into `<repo>/.cache/interop/python`. Every wait is bounded.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{Client, ClientError, Retry, Step, form_answer};
use mcp_runtime::prelude::*;
use mcp_runtime::schema::{
    ContentBlock, ElicitRequestFormParams, ElicitRequestParams, ElicitResult, InputRequest,
    InputRequiredResult, Role,
};
use serde::Serialize;
use serde_json::{Value, json};
use support::interop::{Harness, run_client};
use support::peer::Listening;

/// Bound for every request our client sends, all rounds included.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// `tests/interop/python/`: `client.py`, `server.py` and the virtualenv with
/// the SDK.
static PYTHON: Harness = Harness::venv("python");

// --- The SDK's client against our server -----------------------------------------

#[test]
fn python_sdk_client_completes_our_tool_and_prompt() {
    let server = Listening::interop_server();

    let mut client = PYTHON.command("client.py");
    client.arg(&server.url);
    let (summary, context) = run_client("client.py", client, Some(&server));

    assert_eq!(summary["protocolVersion"], "2026-07-28", "{context}");
    assert_eq!(summary["serverInfo"]["name"], "interop-server", "{context}");
    assert_eq!(summary["problems"], json!([]), "{context}");

    let tool = &summary["tool"];
    assert_eq!(
        tool["texts"],
        json!(["Booked Chez Rust for 4, late sitting."]),
        "{context}"
    );
    assert_eq!(tool["isError"], false, "{context}");
    assert_eq!(tool["elicitations"], 2, "{context}");
    let keys: Vec<&Value> = tool["requests"]
        .as_array()
        .unwrap_or_else(|| panic!("no tool requests: {context}"))
        .iter()
        .map(|r| &r["key"])
        .collect();
    assert_eq!(keys, [&json!("guests"), &json!("sitting")], "{context}");
    let guests = &tool["requests"][0]["requestedSchema"]["properties"]["guests"];
    assert_eq!(guests["type"], "integer", "{context}");
    assert_eq!(guests["minimum"], 1, "{context}");
    assert_eq!(guests["maximum"], 12, "{context}");
    let sitting = &tool["requests"][1]["requestedSchema"]["properties"]["sitting"];
    assert_eq!(sitting["enum"], json!(["early", "late"]), "{context}");
    assert_eq!(
        tool["requests"][1]["message"], "A table for 4: which sitting?",
        "the second round must know the first answer: {context}"
    );

    assert_eq!(
        summary["listed"],
        json!({"tools": ["add", "book_table", "checkout"], "prompts": ["haiku"]}),
        "{context}"
    );
    assert_eq!(
        summary["declined"],
        json!({"texts": ["No table booked."], "elicitations": 1, "keys": ["guests"]}),
        "{context}"
    );

    let prompt = &summary["prompt"];
    assert_eq!(
        prompt["messages"],
        json!([{"role": "user", "text": "Write a haiku about rust."}]),
        "{context}"
    );
    assert_eq!(prompt["elicitations"], 1, "{context}");
    assert_eq!(prompt["requests"][0]["key"], "topic", "{context}");
    assert_eq!(
        prompt["requests"][0]["requestedSchema"]["properties"]["topic"]["type"], "string",
        "{context}"
    );
}

// --- Our client against the SDK's server -----------------------------------------

#[derive(ElicitForm, Serialize)]
struct NightsForm {
    /// How many nights?
    nights: i64,
}

#[derive(ElicitForm, Serialize)]
struct BreakfastForm {
    /// Breakfast included?
    breakfast: bool,
}

#[derive(ElicitForm, Serialize)]
struct NameForm {
    /// Whom to greet?
    name: String,
}

/// What our form handler saw: the message and requested schema of each form.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(String, Value)>>>);

impl Seen {
    fn all(&self) -> Vec<(String, Value)> {
        self.0.lock().unwrap().clone()
    }
}

/// Answers the Python server's forms: 3 nights, breakfast, the name "Ada".
fn answer(params: &ElicitRequestFormParams) -> ElicitResult {
    let fields = &params.requested_schema.properties;
    if fields.contains_key("nights") {
        form_answer(&NightsForm { nights: 3 }).unwrap()
    } else if fields.contains_key("breakfast") {
        form_answer(&BreakfastForm { breakfast: true }).unwrap()
    } else if fields.contains_key("name") {
        form_answer(&NameForm { name: "Ada".into() }).unwrap()
    } else {
        ElicitResult::decline()
    }
}

fn python_server() -> Listening {
    let server = Listening::spawn(PYTHON.command("server.py"));
    assert!(
        server.url.starts_with("http://127.0.0.1:") && server.url.ends_with("/mcp"),
        "unexpected URL from server.py: {}",
        server.url
    );
    server
}

fn texts(content: &[ContentBlock]) -> Vec<String> {
    content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            other => panic!("not a text block: {other:?}"),
        })
        .collect()
}

/// The only form request of `asked`, under `key`.
fn only_form<'a>(asked: &'a InputRequiredResult, key: &str) -> &'a ElicitRequestFormParams {
    let requests = asked
        .input_requests
        .as_ref()
        .unwrap_or_else(|| panic!("no inputRequests: {asked:?}"));
    assert_eq!(
        requests.keys().collect::<Vec<_>>(),
        [key],
        "input request keys: {asked:?}"
    );
    match &requests[key] {
        InputRequest::Elicitation(ElicitRequestParams::Form(form)) => form,
        other => panic!("{key}: expected a form elicitation, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_completes_the_python_sdk_tool_and_prompt() {
    let server = python_server();
    let seen = Seen::default();
    let calls = Arc::new(AtomicUsize::new(0));
    let (record, count) = (seen.clone(), Arc::clone(&calls));
    let client = Client::http(&server.url)
        .max_duration(CALL_TIMEOUT)
        .on_elicit_form(move |params: ElicitRequestFormParams| {
            count.fetch_add(1, Ordering::SeqCst);
            let schema = serde_json::to_value(&params.requested_schema).unwrap();
            record
                .0
                .lock()
                .unwrap()
                .push((params.message.clone(), schema));
            let reply = answer(&params);
            async move { reply }
        })
        .connect()
        .await
        .unwrap();
    let logs = || format!("server.py stderr:\n{}", server.logs());

    let discovered = client
        .discover()
        .await
        .unwrap_or_else(|e| panic!("server/discover failed: {e}\n{}", logs()));
    assert!(
        discovered
            .supported_versions
            .iter()
            .any(|v| v == "2026-07-28"),
        "{discovered:?}"
    );
    let tools = client.list_tools().await.unwrap();
    assert_eq!(
        tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["plan_trip"]
    );
    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(
        prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["greeting"]
    );

    let tool = client
        .call_tool(
            "plan_trip",
            Some(json!({"city": "Lisbon"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap_or_else(|e| panic!("plan_trip failed: {e}\n{}", logs()));
    assert_eq!(
        texts(&tool.content),
        ["Booked 3 nights in Lisbon with breakfast."],
        "{}",
        logs()
    );
    assert_ne!(tool.is_error, Some(true));
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "form handler runs for the tool"
    );
    let forms = seen.all();
    assert_eq!(forms[0].0, "How many nights in Lisbon?");
    assert_eq!(forms[0].1["properties"]["nights"]["type"], "integer");
    assert_eq!(forms[0].1["properties"]["nights"]["minimum"], 1);
    assert_eq!(forms[0].1["properties"]["nights"]["maximum"], 14);
    assert_eq!(
        forms[1].0, "3 nights: breakfast included?",
        "the second round must know the first answer"
    );
    assert_eq!(forms[1].1["properties"]["breakfast"]["type"], "boolean");

    let prompt = client
        .get_prompt("greeting", None)
        .await
        .unwrap_or_else(|e| panic!("greeting failed: {e}\n{}", logs()));
    assert_eq!(prompt.messages.len(), 1, "{prompt:?}");
    assert_eq!(prompt.messages[0].role, Role::User);
    assert_eq!(
        texts(std::slice::from_ref(&prompt.messages[0].content)),
        ["Say hello to Ada."]
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        3,
        "form handler runs once more for the prompt"
    );
    let forms = seen.all();
    assert_eq!(forms[2].0, "Whom should I greet?");
    assert_eq!(forms[2].1["properties"]["name"]["type"], "string");

    // A user who declines the first form: the tool finishes without a booking.
    let declines = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&declines);
    let declining = Client::http(&server.url)
        .max_duration(CALL_TIMEOUT)
        .on_elicit_form(move |_| {
            count.fetch_add(1, Ordering::SeqCst);
            async { ElicitResult::decline() }
        })
        .connect()
        .await
        .unwrap();
    let declined = declining
        .call_tool(
            "plan_trip",
            Some(json!({"city": "Lisbon"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap_or_else(|e| panic!("declined plan_trip failed: {e}\n{}", logs()));
    assert_eq!(texts(&declined.content), ["Nothing booked."]);
    assert_eq!(declines.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_drives_the_python_sdk_tool_by_hand() {
    let server = python_server();
    let calls = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&calls);
    let client = Client::http(&server.url)
        .max_duration(CALL_TIMEOUT)
        .on_elicit_form(move |params: ElicitRequestFormParams| {
            count.fetch_add(1, Ordering::SeqCst);
            let reply = answer(&params);
            async move { reply }
        })
        .connect()
        .await
        .unwrap();
    let args = || Some(json!({"city": "Lisbon"}).as_object().unwrap().clone());
    let once = |retry: Retry| {
        let client = &client;
        async move {
            tokio::time::timeout(
                CALL_TIMEOUT,
                client.call_tool_once("plan_trip", args(), &retry),
            )
            .await
            .expect("one round answers in time")
        }
    };

    // Round 1: the raw input_required result.
    let Step::InputRequired(first) = once(Retry::none()).await.unwrap() else {
        panic!("plan_trip must first ask for input");
    };
    let form = only_form(&first, "nights");
    assert_eq!(form.message, "How many nights in Lisbon?");
    let nights = serde_json::to_value(&form.requested_schema).unwrap();
    assert_eq!(nights["properties"]["nights"]["type"], "integer");
    assert_eq!(nights["required"], json!(["nights"]));
    let state = first
        .request_state
        .clone()
        .expect("the first round carries requestState");
    assert!(
        !state.is_empty() && !state.contains("step") && !state.contains("nights"),
        "the SDK seals requestState, so its plaintext must not show: {state:?}"
    );

    // A tampered requestState is refused by the SDK's request-state boundary.
    let answers = client.fulfil(&first).await.unwrap();
    let mut tampered = Retry::answering(&first, answers.clone());
    tampered.request_state = Some(format!("{state}x"));
    match once(tampered).await {
        Err(ClientError::Protocol(error)) => assert_eq!(error.code, -32602, "{error:?}"),
        other => panic!("a tampered requestState must be refused with -32602, got {other:?}"),
    }

    // Round 2: the echoed state carries the first answer.
    let Step::InputRequired(second) = once(Retry::answering(&first, answers)).await.unwrap() else {
        panic!("plan_trip must ask a second time");
    };
    let form = only_form(&second, "breakfast");
    assert_eq!(form.message, "3 nights: breakfast included?");
    assert!(second.request_state.is_some());
    assert_ne!(second.request_state, first.request_state);

    // Round 3: complete.
    let answers = client.fulfil(&second).await.unwrap();
    let Step::Complete(done) = once(Retry::answering(&second, answers)).await.unwrap() else {
        panic!("plan_trip must complete after two answers");
    };
    assert_eq!(
        texts(&done.content),
        ["Booked 3 nights in Lisbon with breakfast."]
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}
