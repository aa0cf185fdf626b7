//! Declared order is kept: `tools/list` writes a tool's input schema
//! `properties` (in both eras), a prompt lists its arguments, and a form
//! its fields, in the order the struct declares them, not sorted. A tool
//! written by hand, whose schema has no known order, keeps its properties
//! sorted.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use mcp_runtime::BoxFuture;
use mcp_runtime::prelude::*;
use mcp_runtime::schema::{CallToolResult, McpError, Tool};
use mcp_runtime::server::handler::{Ctx, Outcome, ToolArguments, ToolHandler};
use serde::Deserialize;
use serde_json::{Value, json};

mod support;

use support::http::{meta, post, request, serve};
use support::legacy::LegacyClient;

#[derive(Deserialize, JsonSchema)]
struct Ordered {
    /// Last in the alphabet, first here.
    zeta: String,
    /// First in the alphabet.
    alpha: String,
    /// In the middle.
    mid: Option<String>,
}

/// Echoes its arguments.
#[tool]
async fn echo(args: Ordered) -> String {
    format!("{} {} {:?}", args.zeta, args.alpha, args.mid)
}

/// A prompt of the same arguments.
#[prompt]
async fn letter(args: Ordered) -> String {
    format!("{} {} {:?}", args.zeta, args.alpha, args.mid)
}

// Only its schema is read here.
#[allow(dead_code)]
#[derive(ElicitForm)]
struct OrderedForm {
    /// Last in the alphabet.
    zeta: String,
    /// First in the alphabet.
    alpha: bool,
    /// In the middle.
    mid: Option<u32>,
}

/// A tool written by hand, its schema's properties given as `{b, a}`.
struct HandTool;

impl ToolHandler for HandTool {
    fn descriptor(&self) -> Tool {
        let Value::Object(schema) = json!({
            "type": "object",
            "properties": {"bravo": {"type": "string"}, "able": {"type": "string"}}
        }) else {
            unreachable!()
        };
        Tool::new("by_hand", "Written by hand.").with_input_schema(schema)
    }

    fn call(
        &self,
        _: ToolArguments,
        _: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async { Ok(Outcome::Complete(CallToolResult::text("done"))) })
    }
}

/// Where `"name":{` first comes in the response text `text`.
fn at(text: &str, name: &str) -> usize {
    text.find(&format!("\"{name}\":{{"))
        .unwrap_or_else(|| panic!("no {name}: {text}"))
}

/// `echo`'s properties in declared order and `by_hand`'s sorted, in the
/// text of a `tools/list` response, read as sent: a `serde_json::Value`
/// would sort the keys again.
fn assert_tool_order(text: &str) {
    let echo = at(text, "zeta");
    assert!(
        echo < at(text, "alpha") && at(text, "alpha") < at(text, "mid"),
        "{text}"
    );
    assert!(at(text, "able") < at(text, "bravo"), "{text}");
    assert!(!text.contains("x-mcp-declared-order"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_properties_keep_declared_order_in_both_eras() {
    let server = Server::builder("order", "1.0.0")
        .handler::<echo>()
        .tool(HandTool)
        .build()
        .unwrap();
    let running = serve(server).await;
    let url = running.url.as_str();

    // 2026-07-28.
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": meta(json!({}), json!({}))}
    });
    let (status, _, modern) = post(url, body, None).await;
    assert_eq!(status, 200, "{modern}");
    assert!(modern.contains("\"resultType\""), "{modern}");
    assert_tool_order(&modern);

    // The 2025 era, in an `initialize` session.
    let (client, _) = LegacyClient::initialize(url, "2025-11-25", json!({})).await;
    let response = client
        .post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}))
        .await;
    assert_eq!(response.status().as_u16(), 200);
    let legacy = response.text().await.unwrap();
    assert!(legacy.contains("\"tools\""), "{legacy}");
    assert!(!legacy.contains("\"resultType\""), "{legacy}");
    assert_tool_order(&legacy);
}

fn keys(object: &Value) -> Vec<&str> {
    object
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {object}"))
        .keys()
        .map(String::as_str)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_arguments_keep_declared_order() {
    let server = Server::builder("order", "1.0.0")
        .handler::<echo>()
        .handler::<letter>()
        .build()
        .unwrap();
    let running = serve(server).await;
    let url = running.url.as_str();

    // The tool's schema, parsed: `required` is in declared order (a parsed
    // `properties` is sorted again; see the test above for its order).
    let tools = request(url, 1, "tools/list", json!({}), meta(json!({}), json!({}))).await;
    let schema = &tools["result"]["tools"][0]["inputSchema"];
    assert_eq!(schema["required"], json!(["zeta", "alpha"]), "{schema}");
    assert_eq!(keys(&schema["properties"]).len(), 3, "{schema}");
    assert!(schema.get("x-mcp-declared-order").is_none(), "{schema}");

    let prompts = request(
        url,
        2,
        "prompts/list",
        json!({}),
        meta(json!({}), json!({})),
    )
    .await;
    let arguments: Vec<&str> = prompts["result"]["prompts"][0]["arguments"]
        .as_array()
        .unwrap_or_else(|| panic!("{prompts}"))
        .iter()
        .map(|argument| argument["name"].as_str().unwrap())
        .collect();
    assert_eq!(arguments, ["zeta", "alpha", "mid"], "{prompts}");
}

#[test]
fn form_fields_keep_declared_order() {
    // As sent: a `serde_json::Value` would sort the keys again.
    let text = serde_json::to_string(&OrderedForm::form("Tell me.")).unwrap();
    let at = |field: &str| {
        text.find(&format!("\"{field}\":{{"))
            .unwrap_or_else(|| panic!("no {field}: {text}"))
    };
    assert!(
        at("zeta") < at("alpha") && at("alpha") < at("mid"),
        "{text}"
    );
}
