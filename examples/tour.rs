//! A tour of the server core over real HTTP on 127.0.0.1: discovery, a
//! tool call, and the precise errors bad requests get. Every request and
//! response is printed as it travels.
//!
//! ```text
//! cargo run --example tour
//! ```

use mcp_runtime::BoxFuture;
use mcp_runtime::schema::{CallToolResult, McpError, Tool};
use mcp_runtime::server::Server;
use mcp_runtime::server::handler::{Ctx, Outcome, ToolArguments, ToolHandler};
use mcp_runtime::transport::http::HttpTransport;
use serde_json::{Value, json};

/// Greets whoever is named in `name`.
struct Greet;

impl ToolHandler for Greet {
    fn descriptor(&self) -> Tool {
        let schema = json!({
            "type": "object",
            "properties": { "name": { "type": "string" } },
            "required": ["name"]
        });
        let Value::Object(schema) = schema else {
            unreachable!("a JSON object literal")
        };
        Tool::new("greet", "Greets someone by name.").with_input_schema(schema)
    }

    fn call(
        &self,
        arguments: ToolArguments,
        _ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
        Box::pin(async move {
            let name = arguments
                .get("name")
                .and_then(|name| name.as_str().map(str::to_owned))
                .ok_or_else(|| McpError::invalid_params("argument `name` must be a string"))?;
            Ok(Outcome::Complete(CallToolResult::text(format!(
                "Hello, {name}!"
            ))))
        })
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "tour", "version": "1.0.0" }
    })
}

async fn send(
    http: &reqwest::Client,
    url: &str,
    title: &str,
    body: Value,
    version_header: &str,
) -> Result<(), reqwest::Error> {
    let method = body["method"].as_str().unwrap_or_default().to_owned();
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", version_header)
        .header("mcp-method", &method);
    if let Some(name) = body["params"]["name"].as_str() {
        request = request.header("mcp-name", name);
    }
    println!("\n== {title}\n-> {body}");
    let response = request.body(body.to_string()).send().await?;
    let status = response.status();
    println!("<- HTTP {status}: {}", response.text().await?);
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("tour", "1.0.0").tool(Greet).build()?;
    let bound = HttpTransport::new(server).bind("127.0.0.1:0").await?;
    let url = bound.url();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(bound.serve_until(async {
        let _ = stopped.await;
    }));
    println!("serving {url}");

    let http = reqwest::Client::new();
    let v = "2026-07-28";
    let discover =
        json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":meta()}});
    send(&http, &url, "discover the server", discover, v).await?;
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"_meta":meta(),"name":"greet","arguments":{"name":"Ada"}}});
    send(&http, &url, "call a tool", call, v).await?;
    let bad_args = json!({"jsonrpc":"2.0","id":3,"method":"tools/call",
        "params":{"_meta":meta(),"name":"greet","arguments":{"name":7}}});
    send(&http, &url, "bad arguments: -32602", bad_args, v).await?;
    let no_meta = json!({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}});
    send(&http, &url, "no _meta: -32602, HTTP 400", no_meta, v).await?;
    let old = json!({"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2025-11-25",
        "io.modelcontextprotocol/clientCapabilities":{}}}});
    send(
        &http,
        &url,
        "unsupported version: -32022, HTTP 400",
        old,
        "2025-11-25",
    )
    .await?;
    let removed = json!({"jsonrpc":"2.0","id":6,"method":"ping","params":{"_meta":meta()}});
    send(&http, &url, "removed method: -32601, HTTP 404", removed, v).await?;

    let _ = stop.send(());
    serving.await??;
    Ok(())
}
