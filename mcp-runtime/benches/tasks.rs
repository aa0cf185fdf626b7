//! Cost of the tasks extension in process (bytes in, JSON out, the
//! in-memory store): creating a task, reading it with `tasks/get`, and a
//! plain call beside them for scale.
//!
//! `cargo bench -p mcp-runtime --bench tasks`

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::Duration;

mod fixtures;

use criterion::{Criterion, criterion_group, criterion_main};
use fixtures::{dispatch, result_of};
use mcp_runtime::prelude::*;
use mcp_runtime::server::{InMemoryTaskStore, Tasks};
use serde_json::{Value, json};

/// Finishes at once: a task born completed.
#[tool(task = "required")]
async fn job() -> &'static str {
    "done"
}

/// A confirmation.
#[derive(ElicitForm)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// Asks at once: a task born waiting for input.
#[tool(task = "required")]
async fn confirm(ctx: Ctx) -> Reply<()> {
    match ctx.answer::<Confirm>("ok") {
        Answer::Accept(Confirm { ok }) => Reply::text(if ok { "confirmed" } else { "refused" }),
        _ => Reply::ask("ok", Confirm::form("Go ahead?")),
    }
}

/// Never a task.
#[tool]
async fn plain() -> &'static str {
    "plain"
}

/// A server whose tasks live `ttl`; the store bounded, no caller or client limit.
fn server(ttl: Duration) -> Server {
    Server::builder("bench-tasks", "0")
        .handler::<job>()
        .handler::<confirm>()
        .handler::<plain>()
        .tasks(
            Tasks::new(InMemoryTaskStore::with_capacity(200_000))
                .ttl(ttl)
                .max_tasks_per_caller(usize::MAX)
                .max_tasks_per_anonymous_client(usize::MAX)
                .max_anonymous_tasks(usize::MAX),
        )
        .build()
        .unwrap()
}

/// A request of a client that declares the tasks extension, as bytes.
fn request(method: &str, params: Value) -> Vec<u8> {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}
    });
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .unwrap()
}

fn bench_tasks(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    // Created tasks are forgotten quickly, so the store stays small.
    let creating = server(Duration::from_millis(200));
    let polling = server(Duration::from_secs(3600));

    let plain = request("tools/call", json!({"name": "plain"}));
    let done = request("tools/call", json!({"name": "job"}));
    let waiting = request("tools/call", json!({"name": "confirm"}));
    let created = result_of(&dispatch(&creating, &runtime, &done));
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "completed");
    let asked = result_of(&dispatch(&creating, &runtime, &waiting));
    assert_eq!(asked["status"], "input_required");

    let completed = result_of(&dispatch(&polling, &runtime, &done));
    let get_completed = request("tasks/get", json!({"taskId": completed["taskId"]}));
    let got = result_of(&dispatch(&polling, &runtime, &get_completed));
    assert_eq!(got["result"]["content"][0]["text"], "done");
    let input = result_of(&dispatch(&polling, &runtime, &waiting));
    let get_waiting = request("tasks/get", json!({"taskId": input["taskId"]}));
    let got = result_of(&dispatch(&polling, &runtime, &get_waiting));
    assert!(got["inputRequests"]["ok"].is_object());

    let mut group = c.benchmark_group("tasks");
    // A plain call on the same server: the scale.
    group.bench_function("plain_call", |b| {
        b.iter(|| dispatch(&creating, &runtime, black_box(&plain)))
    });
    // tools/call that makes a task finished in its first run.
    group.bench_function("create_completed", |b| {
        b.iter(|| dispatch(&creating, &runtime, black_box(&done)))
    });
    // tools/call that makes a task waiting for an answer.
    group.bench_function("create_input_required", |b| {
        b.iter(|| dispatch(&creating, &runtime, black_box(&waiting)))
    });
    // tasks/get of a completed task (its result inline).
    group.bench_function("get_completed", |b| {
        b.iter(|| dispatch(&polling, &runtime, black_box(&get_completed)))
    });
    // tasks/get of a task waiting for input (its question inline).
    group.bench_function("get_input_required", |b| {
        b.iter(|| dispatch(&polling, &runtime, black_box(&get_waiting)))
    });
    group.finish();
}

criterion_group!(benches, bench_tasks);
criterion_main!(benches);
