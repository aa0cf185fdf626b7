//! Asking the client for input in the middle of a call, end to end.
//!
//! A `deploy` tool cannot finish without a confirmation, so it answers the
//! first call with an `InputRequiredResult`: a form asking "Deploy to
//! production?" and a signed `requestState`. A scripted client, in the same
//! process but over real HTTP on 127.0.0.1, answers the form and calls
//! again with the echoed state. Every message is printed as it travels.
//!
//! The tool is written with the macros: `#[tool]` on an async function,
//! the form as a struct deriving `ElicitForm`, the typed resume state as a
//! `Resume<Step>` parameter, and the answer read with `ctx.answer::<Confirm>`.
//!
//! ```text
//! cargo run --example input_required
//! ```

use mcp_runtime::prelude::*;
use mcp_runtime::state::RequestStateSigner;
use mcp_runtime::transport::http::HttpTransport;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The form the user fills in: one required yes/no field.
#[derive(ElicitForm)]
struct Confirm {
    /// Deploy to production?
    ok: bool,
}

/// Where a deployment stands between rounds. It travels, signed and bound
/// to this caller, tool and arguments, in `requestState`.
#[derive(Serialize, Deserialize)]
enum Step {
    AwaitingConfirmation,
}

/// Asks for the confirmation, resuming at `Step::AwaitingConfirmation`.
fn ask() -> Reply<Step> {
    Reply::ask("confirm", Confirm::form("Deploy to production?")).resume(Step::AwaitingConfirmation)
}

/// Deploy the current build.
#[tool(destructive)]
async fn deploy(ctx: Ctx, step: Resume<Step>) -> Reply<Step> {
    // The state was verified before this handler ran; `None` is a first call.
    match step.into_inner() {
        None => ask(),
        Some(Step::AwaitingConfirmation) => match ctx.answer::<Confirm>("confirm") {
            Answer::Accept(Confirm { ok: true }) => Reply::text("Deployed."),
            Answer::Accept(Confirm { ok: false }) | Answer::Decline | Answer::Cancel => {
                Reply::text("Not deployed.")
            }
            // No usable answer this round: ask again.
            Answer::Missing | Answer::Invalid(_) => ask(),
        },
    }
}

/// A scripted MCP client speaking raw JSON over HTTP.
struct Client {
    http: reqwest::Client,
    url: String,
    next_id: i64,
}

impl Client {
    async fn call(&mut self, params: Value) -> Result<Value, reqwest::Error> {
        self.next_id += 1;
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
            "io.modelcontextprotocol/clientInfo": { "name": "scripted-client", "version": "1.0.0" }
        });
        let request =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": params});
        println!("\nclient -> {request}");
        let response: Value = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "deploy")
            .body(request.to_string())
            .send()
            .await?
            .json()
            .await?;
        println!("server -> {response}");
        Ok(response)
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The reason a state is refused goes to the server's log, never to the client.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    // A key from configuration would let any instance verify the state;
    // a generated one is enough for one process.
    let signer = RequestStateSigner::generate()?;
    let server = Server::builder("deployer", "1.0.0")
        .tool(deploy {})
        .request_state_signer(signer)
        .build()?;
    let bound = HttpTransport::new(server).bind("127.0.0.1:0").await?;
    let mut client = Client {
        http: reqwest::Client::new(),
        url: bound.url(),
        next_id: 0,
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(bound.serve_until(async {
        let _ = stopped.await;
    }));

    println!("== 1. The first call cannot finish: the server asks for a confirmation.");
    let args = json!({"target": "production"});
    let first = client
        .call(json!({"name": "deploy", "arguments": args}))
        .await?;
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap_or_default()
        .to_owned();

    println!("\n== 2. The user accepts; the client retries with the answer and the echoed state.");
    let answer = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let done = client
        .call(json!({"name": "deploy", "arguments": args, "inputResponses": answer, "requestState": state}))
        .await?;
    println!("   result: {}", done["result"]["content"][0]["text"]);

    println!("\n== 3. A tampered state is refused before the handler runs.");
    client
        .call(
            json!({"name": "deploy", "arguments": args, "inputResponses": answer,
                     "requestState": format!("{state}-TAMPERED")}),
        )
        .await?;

    println!("\n== 4. A state minted for production does not resume a call for staging.");
    client
        .call(json!({"name": "deploy", "arguments": {"target": "staging"},
                     "inputResponses": answer, "requestState": state}))
        .await?;

    println!("\n== 5. The user declines.");
    let declined = json!({"confirm": {"action": "decline"}});
    client
        .call(json!({"name": "deploy", "arguments": args, "inputResponses": declined, "requestState": state}))
        .await?;

    let _ = stop.send(());
    serving.await??;
    Ok(())
}
