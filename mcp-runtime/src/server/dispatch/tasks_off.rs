//! A server built without the `tasks` feature: the tasks extension's
//! methods are unknown (-32601), the extension is not advertised, a tool
//! that may run as a task is answered directly, and one that must is
//! refused by `build()`. Run with
//! `cargo test -p mcp-runtime --lib --no-default-features --features server`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};

use crate::BoxFuture;
use crate::receive_context::{ReceiveContext, TransportKind};
use crate::schema::{CallToolResult, JsonObject, McpError, TASKS_EXTENSION, Tool};
use crate::server::handler::{
    Ctx, MethodHandler, Outcome, TaskSupport, ToolArguments, ToolHandler,
};
use crate::server::{Incoming, Notifier, Server, parse_message};

/// A tool with the task support it is given.
struct Slow(TaskSupport);

impl ToolHandler for Slow {
    fn descriptor(&self) -> Tool {
        Tool::new("slow", "Takes its time.")
    }
    fn task_support(&self) -> TaskSupport {
        self.0
    }
    fn call(
        &self,
        _args: ToolArguments,
        _ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async { Ok(Outcome::Complete(CallToolResult::text("done"))) })
    }
}

/// An extension method that tries to take a name of the tasks extension.
struct FakeTasksGet;

impl MethodHandler for FakeTasksGet {
    fn method(&self) -> &str {
        "tasks/get"
    }
    fn handle(&self, _: JsonObject, _: Ctx) -> BoxFuture<'_, Result<Outcome<Value>, McpError>> {
        Box::pin(async { Ok(Outcome::Complete(json!({}))) })
    }
}

fn server() -> Server {
    Server::builder("no-tasks", "0")
        .tool(Slow(TaskSupport::Optional))
        .build()
        .unwrap()
}

/// A 2026-07-28 request whose client declares the tasks extension.
async fn ask(server: &Server, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION: {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"}
    });
    let bytes =
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
            .unwrap();
    let Ok(Incoming::Request(request)) = parse_message(&bytes) else {
        panic!("not a request");
    };
    let response = server
        .handle_request(
            request,
            ReceiveContext::new(TransportKind::InProcess),
            Notifier::disabled(),
        )
        .await;
    serde_json::from_str(&response.to_json()).unwrap()
}

#[tokio::test]
async fn tasks_methods_are_unknown() {
    let server = server();
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let answer = ask(&server, method, json!({"taskId": "1"})).await;
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    }
}

#[tokio::test]
async fn the_extension_is_not_advertised() {
    let answer = ask(&server(), "server/discover", json!({})).await;
    let capabilities = &answer["result"]["capabilities"];
    assert!(capabilities.is_object(), "{answer}");
    assert!(
        capabilities["extensions"].get(TASKS_EXTENSION).is_none(),
        "{answer}"
    );
}

#[tokio::test]
async fn a_task_augmented_call_is_answered_directly() {
    let answer = ask(&server(), "tools/call", json!({"name": "slow"})).await;
    assert_eq!(answer["result"]["content"][0]["text"], "done", "{answer}");
    assert_ne!(answer["result"]["resultType"], "task", "{answer}");
}

#[test]
fn a_tool_that_requires_tasks_is_refused() {
    let Err(error) = Server::builder("no-tasks", "0")
        .tool(Slow(TaskSupport::Required))
        .build()
    else {
        panic!("built a server whose tool requires tasks");
    };
    assert!(error.to_string().contains("`tasks` feature"), "{error}");
}

#[test]
fn an_extension_may_not_take_a_tasks_method() {
    let built = Server::builder("no-tasks", "0")
        .method(FakeTasksGet)
        .build();
    assert!(built.is_err(), "an extension took tasks/get");
}
