//! Cost of one `tools/call` through the in-process dispatch path (bytes in,
//! JSON out: `parse_message`, `Server::handle_request`, `Response::to_json`)
//! for a plain tool and for each round of a signed input-required flow, and
//! of decoding an `ElicitForm` answer.
//!
//! `cargo bench -p mcp-runtime --bench dispatch`
//!
//! The ratio the [bench] issue tracks is `dispatch/input_required_round`
//! over `dispatch/plain`: a middle round verifies the echoed state, decodes
//! it into the handler's enum, decodes the form answer, mints and signs the
//! next state (target: at most 1.3x a plain call).

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::prelude::*;
use mcp_runtime::schemars::JsonSchema;
use mcp_runtime::server::{Incoming, Notifier, ReceiveContext, TransportKind, parse_message};
use mcp_runtime::state::RequestStateSigner;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// --- The server: the conformance fixtures' shapes ------------------------------------

/// Returns a fixed text (as the `test_simple_text` fixture).
#[tool]
async fn simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Asks for a name.
#[derive(ElicitForm)]
struct NameForm {
    /// Your name.
    name: String,
}

/// Asks for a favourite colour.
#[derive(ElicitForm)]
struct ColorForm {
    /// Your favorite color.
    color: String,
}

/// Where the flow stands (as the `test_input_required_result_multi_round`
/// fixture).
#[derive(Serialize, Deserialize)]
enum Rounds {
    AskedName,
    AskedColor { name: String },
}

fn ask_name() -> Reply<Rounds> {
    Reply::ask("step1", NameForm::form("Step 1: What is your name?")).resume(Rounds::AskedName)
}

fn ask_color(name: String) -> Reply<Rounds> {
    Reply::ask(
        "step2",
        ColorForm::form("Step 2: What is your favorite color?"),
    )
    .resume(Rounds::AskedColor { name })
}

/// Asks for a name, then for a colour, then answers with both.
#[tool]
async fn multi_round(ctx: Ctx, step: Resume<Rounds>) -> Reply<Rounds> {
    match step.into_inner() {
        None => ask_name(),
        Some(Rounds::AskedName) => match ctx.answer::<NameForm>("step1") {
            Answer::Accept(NameForm { name }) => ask_color(name),
            _ => ask_name(),
        },
        Some(Rounds::AskedColor { name }) => match ctx.answer::<ColorForm>("step2") {
            Answer::Accept(ColorForm { color }) => {
                Reply::text(format!("Hello {name}, whose favorite color is {color}!"))
            }
            _ => ask_color(name),
        },
    }
}

/// The arguments of `echo`.
#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "mcp_runtime::schemars")]
struct EchoArgs {
    /// What to echo.
    text: String,
    /// How many times.
    times: u32,
    /// Upper-case it?
    shout: Option<bool>,
}

/// Echoes its arguments: a plain tool with typed arguments.
#[tool]
async fn echo(args: EchoArgs) -> String {
    let text = args.text.repeat(args.times.min(4) as usize);
    if args.shout == Some(true) {
        text.to_uppercase()
    } else {
        text
    }
}

fn server() -> Server {
    Server::builder("bench", "0")
        .tool(simple_text {})
        .tool(echo {})
        .tool(multi_round {})
        .request_state_signer(RequestStateSigner::new([7u8; 32]).unwrap())
        .build()
        .unwrap()
}

/// The `tools/call` a 2026-07-28 client sends, as bytes.
fn call(name: &str, extra: Value) -> Vec<u8> {
    let mut params = json!({
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}
        },
        "name": name,
        "arguments": {}
    });
    if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
        params.extend(extra);
    }
    serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}),
    )
    .unwrap()
}

/// One request through the whole in-process path: parse, dispatch, serialise.
fn dispatch(server: &Server, runtime: &tokio::runtime::Runtime, bytes: &[u8]) -> String {
    let Ok(Incoming::Request(request)) = parse_message(bytes) else {
        panic!("not a request");
    };
    let response = runtime.block_on(server.handle_request(
        request,
        ReceiveContext::new(TransportKind::InProcess),
        Notifier::disabled(),
    ));
    response.to_json()
}

/// The `result` of a response, checked to be a success.
fn result_of(json: &str) -> Value {
    let value: Value = serde_json::from_str(json).unwrap();
    let result = value.get("result").cloned();
    result.unwrap_or_else(|| panic!("an error response: {json}"))
}

fn state_of(json: &str) -> String {
    let result = result_of(json);
    assert_eq!(result["resultType"], "input_required", "{json}");
    result["requestState"].as_str().unwrap().to_owned()
}

fn accept(field: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

fn bench_dispatch(c: &mut Criterion) {
    let server = server();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();

    let plain = call("simple_text", json!({}));
    let with_arguments = call(
        "echo",
        json!({"arguments": {"text": "hello", "times": 2, "shout": false}}),
    );
    let list = serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}
        }}
    }))
    .unwrap();
    let first = call("multi_round", json!({}));
    let asked_name = state_of(&dispatch(&server, &runtime, &first));
    let round = call(
        "multi_round",
        json!({"inputResponses": {"step1": accept("name", "Ada")}, "requestState": asked_name}),
    );
    let asked_color = state_of(&dispatch(&server, &runtime, &round));
    let last = call(
        "multi_round",
        json!({"inputResponses": {"step2": accept("color", "teal")}, "requestState": asked_color}),
    );
    let done = result_of(&dispatch(&server, &runtime, &last));
    assert_eq!(done["resultType"], "complete", "{done}");
    assert!(result_of(&dispatch(&server, &runtime, &plain))["content"].is_array());
    let echoed = result_of(&dispatch(&server, &runtime, &with_arguments));
    assert_eq!(echoed["content"][0]["text"], "hellohello");
    let listed = result_of(&dispatch(&server, &runtime, &list));
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(3));

    let mut group = c.benchmark_group("dispatch");
    // A plain tool: the baseline.
    group.bench_function("plain", |b| {
        b.iter(|| dispatch(&server, &runtime, black_box(&plain)))
    });
    // A plain tool with three typed arguments.
    group.bench_function("plain_with_arguments", |b| {
        b.iter(|| dispatch(&server, &runtime, black_box(&with_arguments)))
    });
    // tools/list of the three tools.
    group.bench_function("tools_list", |b| {
        b.iter(|| dispatch(&server, &runtime, black_box(&list)))
    });
    // First call of a flow: mint and sign the first state.
    group.bench_function("input_required_first", |b| {
        b.iter(|| dispatch(&server, &runtime, black_box(&first)))
    });
    // A middle round: verify, decode the state and the answer, mint, sign.
    group.bench_function("input_required_round", |b| {
        b.iter(|| dispatch(&server, &runtime, black_box(&round)))
    });
    // The last round: verify, decode the state and the answer, complete.
    group.bench_function("input_required_last", |b| {
        b.iter(|| dispatch(&server, &runtime, black_box(&last)))
    });
    group.finish();
}

// --- Form answers ------------------------------------------------------------------

/// A one-field confirmation (as the `test_input_required_result_request_state`
/// fixture).
#[derive(ElicitForm)]
struct ConfirmForm {
    /// Confirm?
    ok: bool,
}

/// The sittings a table can be booked for.
#[derive(Debug, Clone, Copy, ElicitChoice)]
#[allow(dead_code)] // `Early` is only a choice offered
enum Sitting {
    Early,
    Late,
}

/// A four-field form: a bounded integer, a choice, a bounded string and an
/// optional flag.
#[derive(ElicitForm)]
struct BookingForm {
    /// How many guests?
    #[elicit(minimum = 1, maximum = 12)]
    guests: i64,
    /// Which sitting?
    sitting: Sitting,
    /// The name on the booking.
    #[elicit(min_length = 1, max_length = 40)]
    name: String,
    /// A table outside?
    outside: Option<bool>,
}

fn bench_forms(c: &mut Criterion) {
    let confirm = json!({"action": "accept", "content": {"ok": true}});
    let booking = json!({
        "action": "accept",
        "content": {"guests": 4, "sitting": "Late", "name": "Ada Lovelace", "outside": false}
    });
    let Answer::Accept(ConfirmForm { ok }) = Answer::from_response(Some(&confirm)) else {
        panic!("the confirmation does not decode");
    };
    assert!(ok);
    let Answer::Accept(form) = Answer::<BookingForm>::from_response(Some(&booking)) else {
        panic!("the booking does not decode");
    };
    assert_eq!(form.guests, 4);
    assert!(matches!(form.sitting, Sitting::Late));
    assert_eq!(
        (form.name.as_str(), form.outside),
        ("Ada Lovelace", Some(false))
    );

    let mut group = c.benchmark_group("form");
    group.bench_function("answer_confirm", |b| {
        b.iter(|| Answer::<ConfirmForm>::from_response(Some(black_box(&confirm))))
    });
    group.bench_function("answer_booking", |b| {
        b.iter(|| Answer::<BookingForm>::from_response(Some(black_box(&booking))))
    });
    group.finish();
}

criterion_group!(benches, bench_dispatch, bench_forms);
criterion_main!(benches);
