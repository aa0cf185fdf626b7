//! Cost of one `tools/call` through the in-process dispatch path (bytes in,
//! JSON out: `parse_message`, `Server::handle_request`, `Response::to_json`)
//! for a plain tool and for each round of a signed input-required flow, and
//! of decoding an `ElicitForm` answer.
//!
//! The `stage` group splits the plain call into its stages (`parse`: the
//! bytes to a `Request`; `handle`: the request to its `Response`, which the
//! transport would write; `to_json`: that response to its text), so each
//! stays measured on its own.
//!
//! `cargo bench -p mcp-runtime --bench dispatch`
//!
//! The ratio the [bench] and [house] issues track is
//! `dispatch/input_required_round` over `dispatch/plain`: a middle round
//! verifies the echoed state, decodes it into the handler's enum, decodes
//! the form answer, and has the next state signed (target: at most 1.5x a
//! plain call). Criterion measures the two one after the other, so a drift
//! of the machine between them moves the ratio; `benches/round_ratio.rs`
//! measures it interleaved.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

mod fixtures;

use criterion::{Criterion, criterion_group, criterion_main};
use fixtures::{accept, call, dispatch, result_of, server, state_of};
use mcp_runtime::prelude::*;
use mcp_runtime::server::{
    Incoming, Notifier, ReceiveContext, Request, TransportKind, parse_message,
};
use serde_json::json;

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

// --- The stages of a plain call ----------------------------------------------------

fn bench_stages(c: &mut Criterion) {
    let server = server();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let plain = call("simple_text", json!({}));
    let Ok(Incoming::Request(request)) = parse_message(&plain) else {
        panic!("the plain call does not parse as a request");
    };
    let handle = |request: Request| {
        runtime.block_on(server.handle_request(
            request,
            ReceiveContext::new(TransportKind::InProcess),
            Notifier::disabled(),
        ))
    };
    let response = handle(request.clone());
    assert!(result_of(&response.to_json())["content"].is_array());

    let mut group = c.benchmark_group("stage");
    // The bytes read into a request (`_meta` and the arguments kept apart).
    group.bench_function("parse", |b| b.iter(|| parse_message(black_box(&plain))));
    // The request served: the era, the checks, the handler, the result
    // finished (the clone of the request is part of the figure).
    group.bench_function("handle", |b| b.iter(|| handle(black_box(&request).clone())));
    // The response written as the JSON-RPC text the transport sends.
    group.bench_function("to_json", |b| b.iter(|| black_box(&response).to_json()));
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

criterion_group!(benches, bench_dispatch, bench_stages, bench_forms);
criterion_main!(benches);
