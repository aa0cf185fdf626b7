//! An on-call desk whose tool asks three questions in line.
//!
//! `page_oncall` reads top to bottom: which team, how urgent, then "page
//! this engineer?", each with `ctx.ask(..).await?`. On a round without an
//! answer the call ends with the question; the client answers and calls
//! again, and the handler runs from the top, the earlier answers carried in
//! the signed state. The same handler serves 2026-07-28 clients, 2025-era
//! clients (asked with `elicitation/create`) and calls that run as tasks.
//! The `triage` prompt asks in line too, and reads a refusal as a value.
//!
//! ```text
//! cargo run --example oncall                 # a scripted client over HTTP on 127.0.0.1
//! cargo run --example oncall -- --stdio      # the server over stdio
//! cargo run --example oncall -- --http PORT  # the server over HTTP on 127.0.0.1:PORT
//! ```

use std::collections::BTreeMap;
use std::process::ExitCode;

use mcp_runtime::client::Client;
use mcp_runtime::prelude::*;
use mcp_runtime::schema::{
    ElicitRequestFormParams, ElicitResult, ElicitValue, GetPromptResult, PromptMessage,
};
use mcp_runtime::state::RequestStateSigner;
use mcp_runtime::transport::{http::HttpTransport, stdio};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The teams that can be paged.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ElicitChoice)]
#[serde(rename_all = "lowercase")]
enum Team {
    Payments,
    Search,
    Storage,
}

/// The first question.
#[derive(ElicitForm)]
struct Which {
    /// The team whose engineer to page.
    team: Team,
}

/// The second question.
#[derive(ElicitForm)]
struct Urgency {
    /// How urgent, from 1 (can wait) to 5 (everything is down).
    #[elicit(minimum = 1, maximum = 5)]
    level: u8,
}

/// The third question.
#[derive(ElicitForm)]
struct Confirm {
    /// Page them now?
    ok: bool,
}

/// What the incident is about.
#[derive(Deserialize, JsonSchema)]
struct Incident {
    /// One line on what is wrong.
    summary: String,
}

fn on_call(team: Team) -> &'static str {
    match team {
        Team::Payments => "Ada",
        Team::Search => "Grace",
        Team::Storage => "Edsger",
    }
}

/// Pages the engineer on call for a team, after asking which team, how
/// urgent, and for a confirmation.
#[tool(task)]
async fn page_oncall(ctx: Ctx, incident: Incident) -> Result<String, ToolError> {
    let Which { team } = ctx.ask("team", Which::form("Which team?")).await?;
    let Urgency { level } = ctx.ask("urgency", Urgency::form("How urgent?")).await?;
    let engineer = on_call(team);
    let question = format!("Page {engineer} ({team:?}) at urgency {level}?");
    let Confirm { ok } = ctx.ask("confirm", Confirm::form(question)).await?;
    Ok(match ok {
        true => format!("Paged {engineer} at urgency {level}: {}", incident.summary),
        false => format!("{engineer} was not paged."),
    })
}

/// A triage note for a team, asked for in line; a declined question is
/// read as a value, not as the end of the call.
#[prompt]
async fn triage(ctx: Ctx) -> Result<GetPromptResult, PromptError> {
    let which: Decision<Which> = ctx.ask("team", Which::form("Which team?")).await?;
    let text = match which {
        Decision::Accept(Which { team }) => format!("Triage the incident for {team:?}."),
        Decision::Decline | Decision::Cancel => "Triage the incident; the team is unknown.".into(),
    };
    Ok(GetPromptResult::new(vec![PromptMessage::user(text)]))
}

fn server() -> Result<Server, Box<dyn std::error::Error>> {
    Ok(Server::builder("oncall", "1.0.0")
        .tool(page_oncall {})
        .prompt(triage {})
        // The answers carried between rounds travel in the state it signs.
        .request_state_signer(RequestStateSigner::generate()?)
        .build()?)
}

/// The scripted user: team payments, urgency 9 (refused: at most 5),
/// then 4, then yes.
async fn user(params: ElicitRequestFormParams) -> ElicitResult {
    println!("   asked: {}", params.message);
    let field = params.requested_schema.properties.keys().next().cloned();
    let value = match field.as_deref() {
        Some("team") => json!("payments"),
        Some("level") if params.message.starts_with("How urgent") => json!(9),
        Some("level") => json!(4),
        Some("ok") => json!(true),
        _ => return ElicitResult::decline(),
    };
    let mut content = BTreeMap::new();
    if let (Some(field), Ok(value)) = (field, serde_json::from_value::<ElicitValue>(value)) {
        content.insert(field, value);
    }
    ElicitResult::accept(content)
}

async fn demonstrate() -> Result<(), Box<dyn std::error::Error>> {
    let bound = HttpTransport::new(server()?).bind("127.0.0.1:0").await?;
    let url = bound.url();
    let serving = tokio::spawn(bound.serve());
    let client = Client::http(&url).on_elicit_form(user).connect().await?;
    println!("== page_oncall, over HTTP, 2026-07-28:");
    let incident = json!({"summary": "checkout is failing"});
    let result = client.call_tool_with("page_oncall", &incident).await?;
    println!("   result: {}", serde_json::to_string(&result.content)?);
    serving.abort();
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => demonstrate().await,
        ["--stdio"] => match server() {
            Ok(server) => stdio::serve(server).await.map_err(Into::into),
            Err(error) => Err(error),
        },
        ["--http", port] => serve_http(port).await,
        _ => Err("usage: oncall [--stdio | --http PORT]".into()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("oncall: {error}");
            ExitCode::from(2)
        }
    }
}

async fn serve_http(port: &str) -> Result<(), Box<dyn std::error::Error>> {
    let bound = HttpTransport::new(server()?)
        .bind(format!("127.0.0.1:{port}").as_str())
        .await?;
    eprintln!("listening on {}", bound.url());
    Ok(bound.serve().await?)
}
