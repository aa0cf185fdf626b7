//! A server written as an `impl` block with `#[handlers]`: its `&self`
//! methods are the tools, prompts and resources, all sharing one value,
//! served over HTTP on 127.0.0.1; each of them asks for input. Also free
//! functions registered by name (`.handler::<name>()`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::sync::Mutex;

use mcp_runtime::prelude::*;
use mcp_runtime::schema::{GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents};
use mcp_runtime::state::RequestStateSigner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod support;

use support::http::{meta, request, serve};

/// A refund desk: what it refunded so far is its shared state.
#[derive(Default)]
struct Desk {
    refunded: Mutex<Vec<String>>,
}

#[derive(Deserialize, JsonSchema)]
struct RefundArgs {
    /// The order to refund.
    order: String,
}

/// Asks whether to go ahead.
#[derive(ElicitForm)]
struct Confirm {
    /// Refund it?
    ok: bool,
}

#[derive(Serialize, Deserialize)]
enum Step {
    Asked,
}

/// The topic of a note.
#[derive(ElicitForm)]
struct Topic {
    /// What about?
    topic: String,
}

#[handlers]
impl Desk {
    /// Refunds an order, after asking.
    #[tool(destructive)]
    async fn refund(&self, args: RefundArgs, ctx: Ctx, step: Resume<Step>) -> Reply<Step> {
        match (step.into_inner(), ctx.answer::<Confirm>("confirm")) {
            (Some(Step::Asked), Answer::Accept(Confirm { ok: true })) => {
                let mut refunded = self.refunded.lock().unwrap();
                refunded.push(args.order.clone());
                Reply::text(format!(
                    "Refunded {} ({} so far).",
                    args.order,
                    refunded.len()
                ))
            }
            (Some(Step::Asked), _) => Reply::text("Not refunded."),
            (None, _) => Reply::ask("confirm", Confirm::form(format!("Refund {}?", args.order)))
                .resume(Step::Asked),
        }
    }

    /// A note about what was refunded, on a topic the user picks.
    #[prompt]
    async fn note(&self, ctx: Ctx) -> Reply<(), GetPromptResult> {
        match ctx.answer::<Topic>("topic") {
            Answer::Accept(Topic { topic }) => {
                let count = self.refunded.lock().unwrap().len();
                Reply::done(GetPromptResult::new(vec![PromptMessage::user(format!(
                    "Write about {topic}: {count} refunds."
                ))]))
            }
            _ => Reply::ask("topic", Topic::form("What about?")),
        }
    }

    /// The refund ledger, after signing in.
    #[resource(uri = "desk://ledger", mime_type = "text/plain")]
    async fn ledger(&self, ctx: Ctx) -> Reply<(), ReadResourceResult> {
        if ctx.input_response("login").is_none() {
            return Reply::ask(
                "login",
                InputRequest::elicit_url("Sign in first.", "https://example.com/login"),
            );
        }
        let ledger = self.refunded.lock().unwrap().join(",");
        Reply::done(ReadResourceResult::new(vec![ResourceContents::text(
            "desk://ledger",
            "text/plain",
            ledger,
        )]))
    }
}

/// Says hello (a free function, registered by name).
#[tool]
async fn hello() -> String {
    "Hello!".into()
}

fn server() -> Server {
    Server::builder("desk", "1.0.0")
        .handlers(Desk::default())
        .handler::<hello>()
        .request_state_signer(RequestStateSigner::generate().unwrap())
        .build()
        .unwrap()
}

/// Sends `method` with `params` under `id`, from a client that can answer
/// forms and URL-mode elicitations; the parsed response.
async fn rpc(url: &str, id: u64, method: &str, params: Value) -> Value {
    let capabilities = json!({"elicitation": {"form": {}, "url": {}}});
    request(url, id, method, params, meta(capabilities, json!({}))).await
}

/// Calls `method` once, then once more with `answer` under the key the
/// server asked for and the state it returned; the final result.
async fn two_rounds(url: &str, method: &str, mut params: Value, answer: Value) -> Value {
    let first = rpc(url, 1, method, params.clone()).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let key = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    params["inputResponses"] = json!({ key: answer });
    if let Some(state) = result.get("requestState") {
        params["requestState"] = state.clone();
    }
    let second = rpc(url, 2, method, params).await;
    assert_eq!(second["result"]["resultType"], "complete", "{second}");
    second["result"].clone()
}

#[tokio::test]
async fn the_methods_of_one_value_are_its_handlers() {
    let running = serve(server()).await;
    let listed = rpc(&running.url, 1, "tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["hello", "refund"]);
    let refund = tools.iter().find(|t| t["name"] == "refund").unwrap();
    assert_eq!(refund["description"], "Refunds an order, after asking.");
    assert_eq!(refund["annotations"]["destructiveHint"], true);
    assert_eq!(refund["inputSchema"]["required"], json!(["order"]));
}

#[tokio::test]
async fn tool_prompt_and_resource_ask_and_share_the_value() {
    let running = serve(server()).await;
    let accept = |content: Value| json!({"action": "accept", "content": content});
    for (n, order) in ["A-1", "A-2"].into_iter().enumerate() {
        let result = two_rounds(
            &running.url,
            "tools/call",
            json!({"name": "refund", "arguments": {"order": order}}),
            accept(json!({"ok": true})),
        )
        .await;
        assert_eq!(
            result["content"][0]["text"],
            format!("Refunded {order} ({} so far).", n + 1)
        );
    }
    let result = two_rounds(
        &running.url,
        "prompts/get",
        json!({"name": "note"}),
        accept(json!({"topic": "refunds"})),
    )
    .await;
    assert_eq!(
        result["messages"][0]["content"]["text"],
        "Write about refunds: 2 refunds."
    );
    let result = two_rounds(
        &running.url,
        "resources/read",
        json!({"uri": "desk://ledger"}),
        json!({"action": "accept"}),
    )
    .await;
    assert_eq!(result["contents"][0]["text"], "A-1,A-2");
}

#[tokio::test]
async fn a_free_function_registered_by_name_is_served() {
    let running = serve(server()).await;
    let called = rpc(&running.url, 1, "tools/call", json!({"name": "hello"})).await;
    assert_eq!(called["result"]["content"][0]["text"], "Hello!");
}
