//! The tools every peer server of the client interop tests serves (see
//! `tests/interop/*/server.*` and `examples/tests/client_interop.rs`),
//! built on this SDK: one server that a client reaches in either era.
//!
//! - `elicit_name`: asks for a name with a form; `Hello, NAME!`, `declined`
//!   or `cancelled`.
//! - `sample`: asks the client's model to "Say hi"; `sampled: TEXT`.
//! - `progress`: three progress notifications 50 ms apart; `done`.
//! - `add_tool`: announces that the tool list changed; `ok`. (This server's
//!   tools are fixed when it is built, so `added` is always listed.)
//! - `added`: `added`.
//! - `slow`: 30 s of work, stopped when the client cancels; `finished`.
//! - `cancelled_count`: how many `slow` calls were stopped before the end.
//!
//! Usage: `peer-tools-server --stdio` or `peer-tools-server --http PORT`
//! (127.0.0.1; 0 picks a free port); over HTTP it prints
//! `listening on URL` on stdout once it listens.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::schema::{CreateMessageRequestParams, CreateMessageResult, InputRequest};
use mcp_runtime::state::RequestStateSigner;
use mcp_runtime::transport::{http::HttpTransport, stdio};
use serde::Serialize;

const USAGE: &str = "usage: peer-tools-server --stdio | --http PORT";

/// The name the user gives (`elicit_name`).
#[derive(ElicitForm, Serialize)]
struct Name {
    /// What is your name?
    name: String,
}

/// Asks the user's name, then greets them.
#[tool]
async fn elicit_name(ctx: Ctx) -> Reply<()> {
    match ctx.answer::<Name>("name") {
        Answer::Accept(Name { name }) => Reply::text(format!("Hello, {name}!")),
        Answer::Decline => Reply::text("declined"),
        Answer::Cancel => Reply::text("cancelled"),
        Answer::Missing | Answer::Invalid(_) => {
            Reply::ask("name", Name::form("What is your name?"))
        }
    }
}

/// Asks the client's model to say hi.
#[tool]
async fn sample(ctx: Ctx) -> Reply<()> {
    let answer = ctx
        .input_response("hi")
        .and_then(|answer| serde_json::from_value::<CreateMessageResult>(answer.clone()).ok());
    match answer {
        Some(answer) => Reply::text(format!("sampled: {}", answer.text())),
        #[allow(deprecated)]
        None => Reply::ask(
            "hi",
            InputRequest::sampling(CreateMessageRequestParams::user_text("Say hi", 50)),
        ),
    }
}

/// Reports three steps of progress.
#[tool]
async fn progress(ctx: Ctx) -> &'static str {
    for step in 1..=3 {
        ctx.progress(f64::from(step), Some(3.0), Some(&format!("step {step}")))
            .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "done"
}

/// Announces that the tool list changed.
#[tool]
async fn add_tool(ctx: Ctx) -> &'static str {
    ctx.changes().tools_list_changed();
    "ok"
}

/// The tool `add_tool` announces.
#[tool]
async fn added() -> &'static str {
    "added"
}

/// How many `slow` calls were stopped before their end.
#[derive(Default)]
struct Stopped(AtomicUsize);

/// Counts a `slow` call that is dropped (cancelled) before it finishes.
struct Running {
    stopped: Option<Arc<Stopped>>,
    finished: bool,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let (false, Some(stopped)) = (self.finished, &self.stopped) {
            stopped.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Works for 30 s, unless cancelled.
#[tool]
async fn slow(ctx: Ctx) -> &'static str {
    let mut running = Running {
        stopped: ctx.shared::<Stopped>(),
        finished: false,
    };
    tokio::time::sleep(Duration::from_secs(30)).await;
    running.finished = true;
    "finished"
}

/// How many `slow` calls were cancelled so far.
#[tool]
async fn cancelled_count(ctx: Ctx) -> String {
    ctx.shared::<Stopped>()
        .map_or(0, |stopped| stopped.0.load(Ordering::SeqCst))
        .to_string()
}

fn server() -> Result<Server, Box<dyn std::error::Error>> {
    Ok(
        Server::builder("peer-tools-server", env!("CARGO_PKG_VERSION"))
            .tool(elicit_name {})
            .tool(sample {})
            .tool(progress {})
            .tool(add_tool {})
            .tool(added {})
            .tool(slow {})
            .tool(cancelled_count {})
            .share(Stopped::default())
            .request_state_signer(RequestStateSigner::generate()?)
            .build()?,
    )
}

async fn run(mode: &str, port: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
    let server = server()?;
    match (mode, port) {
        ("--stdio", None) => Ok(stdio::serve(server).await?),
        ("--http", Some(port)) => {
            let bound = HttpTransport::new(server)
                .bind(format!("127.0.0.1:{port}").as_str())
                .await?;
            println!("listening on {}", bound.url());
            Ok(bound.serve().await?)
        }
        _ => Err(USAGE.into()),
    }
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
    let mut args = std::env::args().skip(1);
    let (Some(mode), port, None) = (args.next(), args.next(), args.next()) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match run(&mode, port).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("peer-tools-server: {error}");
            ExitCode::from(2)
        }
    }
}
