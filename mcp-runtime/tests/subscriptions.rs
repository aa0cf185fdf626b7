//! `subscriptions/listen` over real HTTP on 127.0.0.1: the acknowledgement,
//! change notifications tagged with the subscription id, the filter, and
//! the closing result on shutdown.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::Duration;

use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use support::http::{Listen, meta, post_json, serve};

/// Announces that the tool list changed.
#[tool]
async fn trigger_tools(ctx: Ctx) -> String {
    ctx.changes().tools_list_changed().to_string()
}

/// Announces that the prompt list changed.
#[tool]
async fn trigger_prompts(ctx: Ctx) -> String {
    ctx.changes().prompts_list_changed().to_string()
}

/// A prompt, so prompt-list changes can be asked for.
#[prompt]
async fn hello() -> String {
    "Hello.".to_owned()
}

fn server() -> Server {
    Server::builder("listen", "1")
        .tool(trigger_tools {})
        .tool(trigger_prompts {})
        .prompt(hello {})
        .build()
        .unwrap()
}

async fn call(url: &str, tool: &str) -> Value {
    post_json(
        url,
        json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
               "params": {"_meta": meta(json!({}), json!({})), "name": tool}}),
    )
    .await
}

#[tokio::test]
async fn listen_acknowledges_then_carries_only_the_requested_changes() {
    let running = serve(server()).await;
    let mut tools = Listen::open(&running.url, 7, json!({"toolsListChanged": true})).await;
    let ack = tools.next().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );

    let mut prompts = Listen::open(&running.url, 8, json!({"promptsListChanged": true})).await;
    assert_eq!(
        prompts.next().await.unwrap()["method"],
        "notifications/subscriptions/acknowledged"
    );

    let reply = call(&running.url, "trigger_tools").await;
    assert_eq!(
        reply["result"]["content"][0]["text"], "2",
        "both streams listen"
    );
    let change = tools.next().await.unwrap();
    assert_eq!(change["method"], "notifications/tools/list_changed");
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );

    // The prompts stream did not ask for tool changes: its next frame is
    // the prompt change announced after the tool change.
    call(&running.url, "trigger_prompts").await;
    let change = prompts.next().await.unwrap();
    assert_eq!(change["method"], "notifications/prompts/list_changed");
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        8
    );

    // Shutting down ends each stream with its closing result.
    drop(running);
    let closing = tools.next().await.unwrap();
    assert_eq!(closing["id"], 7);
    assert_eq!(closing["result"]["resultType"], "complete");
    assert_eq!(
        closing["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );
    assert!(tools.next().await.is_none());
}

#[tokio::test]
async fn unoffered_kinds_are_not_acknowledged() {
    let running = serve(server()).await;
    let mut stream = Listen::open(
        &running.url,
        1,
        json!({"toolsListChanged": true, "resourcesListChanged": true, "resourceSubscriptions": ["x://y"]}),
    )
    .await;
    let ack = stream.next().await.unwrap();
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
}

#[tokio::test]
async fn discover_advertises_list_changes() {
    let running = serve(server()).await;
    let reply = post_json(
        &running.url,
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
               "params": {"_meta": meta(json!({}), json!({}))}}),
    )
    .await;
    let capabilities = &reply["result"]["capabilities"];
    assert_eq!(capabilities["tools"]["listChanged"], true);
    assert_eq!(capabilities["prompts"]["listChanged"], true);
}

#[tokio::test]
async fn listen_over_stdio_ends_when_input_ends() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (client, server_io) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_io);
    let serving = tokio::spawn(
        mcp_runtime::transport::stdio::StdioTransport::new(server())
            .max_line_bytes(1 << 20)
            .serve_on(BufReader::new(server_read), server_write),
    );
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    let mut next = async || -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("no line within 10 s")
            .unwrap()
            .expect("stdout ended");
        serde_json::from_str(&line).unwrap()
    };

    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
        "params": {"_meta": meta(json!({}), json!({})), "notifications": {"toolsListChanged": true}}});
    client_write
        .write_all(format!("{listen}\n").as_bytes())
        .await
        .unwrap();
    let ack = next().await;
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );

    let trigger = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"_meta": meta(json!({}), json!({})), "name": "trigger_tools"}});
    client_write
        .write_all(format!("{trigger}\n").as_bytes())
        .await
        .unwrap();
    let mut seen = [next().await, next().await];
    seen.sort_by_key(|m| m.get("id").is_some());
    assert_eq!(seen[0]["method"], "notifications/tools/list_changed");
    assert_eq!(
        seen[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );
    assert_eq!(seen[1]["id"], 2);

    // End of input closes the stream with its result, then the server returns.
    client_write.shutdown().await.unwrap();
    let closing = next().await;
    assert_eq!(closing["id"], "sub");
    assert_eq!(closing["result"]["resultType"], "complete");
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .expect("the stdio server ended")
        .unwrap()
        .unwrap();
}
