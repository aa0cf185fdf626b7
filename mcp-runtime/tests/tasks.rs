//! The tasks extension over real HTTP on 127.0.0.1: a `tools/call` that
//! becomes a task, polled, answered and cancelled; its questions asked
//! inside the task with the handler's state kept server-side (no signer
//! here); questions asked before the task; failures; ownership, bounds and
//! expiry; and `notifications/tasks` on a listen stream.

#![cfg(feature = "tasks")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mcp_runtime::prelude::*;
use mcp_runtime::server::Caller;
use mcp_runtime::server::tasks::Tasks;
use mcp_runtime::transport::http::HttpTransport;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use support::http::{Listen, meta, post, post_with, request, serve, start};

const TASKS: &str = "io.modelcontextprotocol/tasks";

// --- The handlers -----------------------------------------------------------------

/// `brew`'s arguments.
#[derive(Deserialize, JsonSchema)]
struct BrewArgs {
    /// How long it takes, in milliseconds.
    ms: u64,
}

/// Brews for `ms` milliseconds; a task when that is long.
#[tool(task)]
async fn brew(args: BrewArgs) -> String {
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    format!("brewed in {} ms", args.ms)
}

/// A size to order.
#[derive(ElicitForm)]
struct Size {
    /// Small, medium or large?
    size: String,
}

/// A confirmation.
#[derive(ElicitForm)]
struct Confirm {
    /// Go ahead?
    ok: bool,
}

/// Where an order is.
#[derive(Serialize, Deserialize)]
enum Step {
    Sizing,
    Confirming { size: String },
}

/// Orders a coffee in two questions, always as a task; its state is kept
/// by the server between them.
#[tool(task = "required")]
async fn order(ctx: Ctx, step: Resume<Step>) -> Reply<Step> {
    match step.into_inner() {
        None | Some(Step::Sizing) => match ctx.answer::<Size>("size") {
            Answer::Accept(Size { size }) => {
                Reply::ask("confirm", Confirm::form("Order it?")).resume(Step::Confirming { size })
            }
            _ => Reply::ask("size", Size::form("Which size?")).resume(Step::Sizing),
        },
        Some(Step::Confirming { size }) => match ctx.answer::<Confirm>("confirm") {
            Answer::Accept(Confirm { ok: true }) => Reply::text(format!("ordered a {size} one")),
            _ => Reply::text("no order"),
        },
    }
}

/// Asks for the size before the task starts, then brews it in the task.
#[tool(task = "required")]
async fn sized_brew(ctx: Ctx) -> Reply<()> {
    match ctx.answer::<Size>("size") {
        Answer::Accept(Size { size }) => Reply::text(format!("a {size} brew")),
        _ => Reply::ask("size", Size::form("Which size?")).before_task(),
    }
}

/// Waits until cancelled, and records that it saw the cancellation.
#[tool(task = "required")]
async fn wait_forever(ctx: Ctx, saw_cancel: Shared<AtomicBool>) -> String {
    ctx.cancelled().await;
    saw_cancel.store(ctx.is_cancelled(), Ordering::SeqCst);
    "stopped".to_owned()
}

/// Fails with a JSON-RPC error after a while.
#[tool(task = "required")]
async fn broken() -> Result<String, McpError> {
    tokio::time::sleep(Duration::from_millis(200)).await;
    Err(McpError::invalid_params("the job's input is broken"))
}

/// Panics after a while.
#[tool(task = "required")]
async fn panics() -> String {
    tokio::time::sleep(Duration::from_millis(200)).await;
    panic!("the job fell over")
}

/// Never a task.
#[tool]
async fn plain() -> String {
    "plain".to_owned()
}

fn builder() -> mcp_runtime::server::ServerBuilder {
    Server::builder("tasks", "1")
        .handler::<brew>()
        .handler::<order>()
        .handler::<sized_brew>()
        .handler::<wait_forever>()
        .handler::<broken>()
        .handler::<panics>()
        .share(AtomicBool::new(false))
}

// --- The client -------------------------------------------------------------------

/// The `_meta` of a client that declares the extension and answers forms.
fn declaring() -> Value {
    meta(
        json!({"elicitation": {"form": {}}, "extensions": {TASKS: {}}}),
        json!({}),
    )
}

async fn rpc(url: &str, method: &str, params: Value) -> Value {
    request(url, 1, method, params, declaring()).await
}

async fn call(url: &str, name: &str, arguments: Value) -> Value {
    rpc(
        url,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
    .await
}

fn result(response: &Value) -> &Value {
    response
        .get("result")
        .unwrap_or_else(|| panic!("not a result: {response:#}"))
}

/// `tasks/get` until `done` holds of the task (at most 10 s).
async fn poll_until(url: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let task = result(&rpc(url, "tasks/get", json!({"taskId": id})).await).clone();
        if done(&task) {
            return task;
        }
        assert!(
            Instant::now() < deadline,
            "the task never got there: {task:#}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn status_is(status: &'static str) -> impl Fn(&Value) -> bool {
    move |task| task["status"] == status
}

/// The empty answer of `tasks/update` and `tasks/cancel`: `resultType`
/// and, at most, the server's `_meta`.
fn assert_ack(response: &Value) {
    let ack = result(response).as_object().unwrap();
    assert_eq!(ack["resultType"], "complete");
    assert!(
        ack.keys().all(|k| k == "resultType" || k == "_meta"),
        "{ack:#?}"
    );
}

fn created_id(response: &Value) -> String {
    let created = result(response);
    assert_eq!(created["resultType"], "task", "{created:#}");
    created["taskId"].as_str().unwrap().to_owned()
}

// --- The tests --------------------------------------------------------------------

#[tokio::test]
async fn a_long_call_becomes_a_task_polled_to_its_result() {
    let running = serve(builder().build().unwrap()).await;
    let created = call(&running.url, "brew", json!({"ms": 400})).await;
    let task = result(&created);
    assert_eq!(task["resultType"], "task");
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttlMs"], 3_600_000);
    assert_eq!(task["pollIntervalMs"], 1000);
    for absent in ["result", "error", "inputRequests", "requestState", "task"] {
        assert!(task.get(absent).is_none(), "{absent} in {task:#}");
    }
    let id = created_id(&created);
    assert_eq!(id.len(), 32, "128 random bits, hex");
    // Readable at once: stored before it was announced.
    let now = result(&rpc(&running.url, "tasks/get", json!({"taskId": id})).await).clone();
    assert_eq!(now["resultType"], "complete");
    assert_eq!(now["status"], "working");
    let done = poll_until(&running.url, &id, status_is("completed")).await;
    assert_eq!(done["result"]["content"][0]["text"], "brewed in 400 ms");
    assert!(done["result"].get("resultType").is_none());
    assert!(done.get("requestState").is_none());

    // Quick enough, it is answered directly; so is every client that does
    // not declare the extension.
    let quick = call(&running.url, "brew", json!({"ms": 0})).await;
    assert_eq!(result(&quick)["resultType"], "complete");
    let plain = request(
        &running.url,
        2,
        "tools/call",
        json!({"name": "brew", "arguments": {"ms": 300}}),
        meta(json!({}), json!({})),
    )
    .await;
    assert_eq!(result(&plain)["content"][0]["text"], "brewed in 300 ms");
}

#[tokio::test]
async fn a_task_asks_inside_and_resumes_from_the_state_it_kept() {
    // No signer: the state never leaves the server.
    let running = serve(builder().build().unwrap()).await;
    let id = created_id(&call(&running.url, "order", json!({})).await);
    let asking = poll_until(&running.url, &id, status_is("input_required")).await;
    assert_eq!(
        asking["inputRequests"]["size"]["params"]["message"],
        "Which size?"
    );
    assert!(asking.get("requestState").is_none());

    // Unknown keys and answers that are not objects are ignored.
    let ignored = rpc(
        &running.url,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"colour": {"action": "accept"}, "size": "large"}}),
    )
    .await;
    assert_ack(&ignored);
    let still = poll_until(&running.url, &id, |_| true).await;
    assert_eq!(still["status"], "input_required");

    let answered = rpc(
        &running.url,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"size": {"action": "accept", "content": {"size": "large"}}}}),
    )
    .await;
    assert_ack(&answered);
    // The second round's question has a key of its own: none is reused.
    let confirming = poll_until(&running.url, &id, |t| {
        t["status"] == "input_required" && t["inputRequests"].get("confirm~2").is_some()
    })
    .await;
    assert_eq!(confirming["inputRequests"].as_object().unwrap().len(), 1);
    // An answer under the first round's key does nothing now.
    rpc(
        &running.url,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}}),
    )
    .await;
    assert_eq!(
        poll_until(&running.url, &id, |_| true).await["status"],
        "input_required"
    );
    rpc(
        &running.url,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"confirm~2": {"action": "accept", "content": {"ok": true}}}}),
    )
    .await;
    let done = poll_until(&running.url, &id, status_is("completed")).await;
    assert_eq!(done["result"]["content"][0]["text"], "ordered a large one");
}

#[tokio::test]
async fn questions_before_the_task_are_asked_in_the_call() {
    let running = serve(builder().build().unwrap()).await;
    let first = call(&running.url, "sized_brew", json!({})).await;
    let asked = result(&first);
    assert_eq!(asked["resultType"], "input_required");
    assert!(asked.get("taskId").is_none());
    assert_eq!(
        asked["inputRequests"]["size"]["method"],
        "elicitation/create"
    );
    let retry = rpc(
        &running.url,
        "tools/call",
        json!({"name": "sized_brew", "arguments": {},
               "inputResponses": {"size": {"action": "accept", "content": {"size": "small"}}}}),
    )
    .await;
    let id = created_id(&retry);
    assert!(result(&retry).get("requestState").is_none());
    let done = poll_until(&running.url, &id, status_is("completed")).await;
    assert_eq!(done["result"]["content"][0]["text"], "a small brew");
}

#[tokio::test]
async fn a_cancel_reaches_the_handler_and_a_finished_task_stays_as_it_is() {
    let saw_cancel = Arc::new(AtomicBool::new(false));
    let server = builder()
        .share_arc(Arc::clone(&saw_cancel))
        .build()
        .unwrap();
    let running = serve(server).await;
    let id = created_id(&call(&running.url, "wait_forever", json!({})).await);
    let ack = rpc(&running.url, "tasks/cancel", json!({"taskId": id})).await;
    assert_ack(&ack);
    let cancelled = poll_until(&running.url, &id, |_| true).await;
    assert_eq!(cancelled["status"], "cancelled");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !saw_cancel.load(Ordering::SeqCst) {
        assert!(
            Instant::now() < deadline,
            "the handler never saw the cancel"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The handler's own ending is not recorded over the cancel.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        poll_until(&running.url, &id, |_| true).await["status"],
        "cancelled"
    );

    let done = created_id(&call(&running.url, "brew", json!({"ms": 150})).await);
    poll_until(&running.url, &done, status_is("completed")).await;
    let again = rpc(&running.url, "tasks/cancel", json!({"taskId": done})).await;
    assert_ack(&again);
    assert_eq!(
        poll_until(&running.url, &done, |_| true).await["status"],
        "completed"
    );
}

#[tokio::test]
async fn errors_fail_the_task_and_tool_errors_complete_it() {
    let running = serve(builder().build().unwrap()).await;
    let id = created_id(&call(&running.url, "broken", json!({})).await);
    let failed = poll_until(&running.url, &id, status_is("failed")).await;
    assert_eq!(failed["error"]["code"], -32602);
    assert_eq!(failed["error"]["message"], "the job's input is broken");
    assert!(failed.get("result").is_none());

    let id = created_id(&call(&running.url, "panics", json!({})).await);
    let failed = poll_until(&running.url, &id, status_is("failed")).await;
    assert_eq!(failed["error"]["code"], -32603);
}

#[tokio::test]
async fn tasks_belong_to_their_caller() {
    let transport =
        HttpTransport::new(builder().build().unwrap()).authenticate(|token: &str| match token {
            "alice-token" => Some(Caller::new("alice")),
            "bob-token" => Some(Caller::new("bob")),
            _ => None,
        });
    let running = start(transport).await;
    let as_caller = |token: &'static str, method: &'static str, params: Value| {
        let url = running.url.clone();
        async move {
            let mut params = params;
            params["_meta"] = declaring();
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
            let (_, _, text) = post(&url, body, Some(token)).await;
            serde_json::from_str::<Value>(&text).unwrap()
        }
    };
    let created = as_caller(
        "alice-token",
        "tools/call",
        json!({"name": "order", "arguments": {}}),
    )
    .await;
    let id = created_id(&created);
    for method in ["tasks/get", "tasks/cancel"] {
        let foreign = as_caller("bob-token", method, json!({"taskId": id})).await;
        assert_eq!(foreign["error"]["code"], -32602, "{method}: {foreign:#}");
        assert_eq!(
            foreign["error"]["message"],
            format!("Unknown task: {id}"),
            "indistinguishable from a task that does not exist"
        );
    }
    let foreign = as_caller(
        "bob-token",
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"size": {"action": "accept", "content": {"size": "xl"}}}}),
    )
    .await;
    assert_eq!(foreign["error"]["code"], -32602);
    let own = as_caller("alice-token", "tasks/get", json!({"taskId": id})).await;
    assert_eq!(own["result"]["taskId"], id.as_str());
    assert_ne!(own["result"]["status"], "cancelled");
}

#[tokio::test]
async fn a_client_holds_a_bounded_number_of_tasks_finished_ones_included() {
    let server = builder()
        .tasks(Tasks::default().max_tasks_per_anonymous_client(2))
        .build()
        .unwrap();
    let running = serve(server).await;
    let first = created_id(&call(&running.url, "order", json!({})).await);
    created_id(&call(&running.url, "order", json!({})).await);
    let refused = call(&running.url, "order", json!({})).await;
    assert_eq!(refused["error"]["code"], -32603);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Server busy: no task was created"),
        "{refused:#}"
    );
    assert_eq!(
        refused["error"]["data"],
        json!({"limit": "max_tasks_per_anonymous_client", "max": 2})
    );
    // A finished task still counts, until it expires.
    rpc(&running.url, "tasks/cancel", json!({"taskId": first})).await;
    let still = call(&running.url, "order", json!({})).await;
    assert_eq!(still["error"]["code"], -32603, "{still:#}");
}

/// Unauthenticated clients are told apart by the address their
/// connections come from (both loopback addresses here): one at its cap
/// does not spend another's allowance.
#[tokio::test]
async fn unauthenticated_clients_at_other_addresses_hold_allowances_of_their_own() {
    let server = builder()
        .tasks(Tasks::default().max_tasks_per_anonymous_client(1))
        .build()
        .unwrap();
    let running = serve(server).await;
    let order_from = |source: [u8; 4]| {
        let url = running.url.clone();
        async move {
            let client = reqwest::Client::builder()
                .local_address(std::net::IpAddr::from(source))
                .build()
                .unwrap();
            let body = json!({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "order", "arguments": {}, "_meta": declaring()}
            });
            let (_, _, text) = post_with(&client, &url, &body, body.to_string(), None).await;
            serde_json::from_str::<Value>(&text).unwrap()
        }
    };
    created_id(&order_from([127, 0, 0, 1]).await);
    let refused = order_from([127, 0, 0, 1]).await;
    assert_eq!(
        refused["error"]["data"]["limit"], "max_tasks_per_anonymous_client",
        "{refused:#}"
    );
    created_id(&order_from([127, 0, 0, 2]).await);
}

#[tokio::test]
async fn a_task_call_with_arguments_past_the_kept_bound_is_refused_before_it_runs() {
    let server = builder()
        .tasks(Tasks::default().max_kept_arguments_bytes(64))
        .build()
        .unwrap();
    let running = serve(server).await;
    let refused = call(&running.url, "order", json!({"note": "x".repeat(100)})).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused:#}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("Tasks::max_kept_arguments_bytes") && message.contains("64"),
        "{message}"
    );
    // Within the bound, the same call makes its task.
    created_id(&call(&running.url, "order", json!({"note": "x"})).await);
}

#[tokio::test]
async fn a_task_is_forgotten_after_its_ttl() {
    let server = builder()
        .tasks(Tasks::default().ttl(Duration::from_millis(400)))
        .build()
        .unwrap();
    let running = serve(server).await;
    let id = created_id(&call(&running.url, "brew", json!({"ms": 150})).await);
    assert_eq!(
        result(&call(&running.url, "brew", json!({"ms": 150})).await)["ttlMs"],
        400
    );
    poll_until(&running.url, &id, status_is("completed")).await;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let gone = rpc(&running.url, "tasks/get", json!({"taskId": id})).await;
        if gone.get("error").is_some() {
            assert_eq!(gone["error"]["code"], -32602);
            break;
        }
        assert!(Instant::now() < deadline, "the task outlived its ttl");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn without_the_extension_the_task_methods_are_refused() {
    let running = serve(builder().build().unwrap()).await;
    let plain = meta(json!({}), json!({}));
    for (method, params) in [
        ("tasks/get", json!({"taskId": "nope"})),
        (
            "tasks/update",
            json!({"taskId": "nope", "inputResponses": {}}),
        ),
        ("tasks/cancel", json!({"taskId": "nope"})),
        ("tools/call", json!({"name": "order", "arguments": {}})),
    ] {
        let refused = request(&running.url, 1, method, params, plain.clone()).await;
        assert_eq!(refused["error"]["code"], -32021, "{method}: {refused:#}");
        assert_eq!(
            refused["error"]["data"]["requiredCapabilities"]["extensions"][TASKS],
            json!({})
        );
    }
    // Declared, an unknown task is -32602; removed methods are -32601.
    let unknown = rpc(&running.url, "tasks/get", json!({"taskId": "nope"})).await;
    assert_eq!(unknown["error"]["code"], -32602);
    for removed in ["tasks/result", "tasks/list"] {
        let gone = rpc(&running.url, removed, json!({"taskId": "nope"})).await;
        assert_eq!(gone["error"]["code"], -32601, "{removed}");
    }
    let discover = rpc(&running.url, "server/discover", json!({})).await;
    assert_eq!(
        result(&discover)["capabilities"]["extensions"][TASKS],
        json!({})
    );

    // A server none of whose tools runs as a task offers none of it.
    let plain_server = Server::builder("no-tasks", "1")
        .handler::<plain>()
        .build()
        .unwrap();
    let running = serve(plain_server).await;
    let discover = rpc(&running.url, "server/discover", json!({})).await;
    assert!(
        result(&discover)["capabilities"]
            .get("extensions")
            .is_none()
    );
    let missing = rpc(&running.url, "tasks/get", json!({"taskId": "nope"})).await;
    assert_eq!(missing["error"]["code"], -32601);
}

#[tokio::test]
async fn a_listen_stream_carries_the_status_of_the_tasks_it_asked_for() {
    let running = serve(builder().build().unwrap()).await;
    let id = created_id(&call(&running.url, "order", json!({})).await);
    poll_until(&running.url, &id, status_is("input_required")).await;
    let filter = json!({"taskIds": [id, "not-a-task"]});
    let mut listen = Listen::open_with(&running.url, 5, filter, declaring()).await;
    let ack = listen.next().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([id]));
    // First the task as it is, then each change.
    let now = listen.next().await.unwrap();
    assert_eq!(now["method"], "notifications/tasks");
    assert_eq!(now["params"]["status"], "input_required");
    assert_eq!(
        now["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        5
    );
    assert!(now["params"].get("resultType").is_none());
    rpc(
        &running.url,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"size": {"action": "accept", "content": {"size": "small"}}}}),
    )
    .await;
    // Then the second question, once the next round has asked it.
    let mut frames = 0;
    loop {
        let next = listen.next().await.unwrap();
        assert_eq!(next["params"]["taskId"], id.as_str());
        if next["params"]["inputRequests"].get("confirm~2").is_some() {
            break;
        }
        frames += 1;
        assert!(frames < 5, "no notification of the second question");
    }

    // Without the extension, asking for tasks is refused.
    let body = json!({"jsonrpc": "2.0", "id": 6, "method": "subscriptions/listen",
        "params": {"_meta": meta(json!({}), json!({})), "notifications": {"taskIds": [id]}}});
    let (status, _, text) = post(&running.url, body, None).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("-32021"), "{text}");
}
