//! Declared order is kept: a prompt lists its arguments, and a form its
//! fields, in the order the struct declares them, not sorted. (A tool's
//! input schema is a JSON object whose `properties` serde_json keeps
//! sorted: see the test below.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use mcp_runtime::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};

mod support;

use support::http::{meta, request, serve};

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

    // The tool's schema: `required` is in declared order; `properties` is
    // a `serde_json::Map`, sorted unless serde_json's `preserve_order` is
    // on, which this workspace leaves off (it grows every JSON object).
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
