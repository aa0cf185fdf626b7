//! The tasks extension (SEP-2663): the fixtures its scenarios call.
//!
//! Ordinary handlers: `#[tool(task)]` lets a tool run as a task when the
//! request declares the extension, `#[tool(task = "required")]` makes it
//! one (and refuses requests that do not declare it). Questions asked
//! inside a task wait in the task (`tasks/get`, `tasks/update`); one marked
//! `before_task` is asked in the call itself, before the task exists.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::schema::ErrorObject;
use serde::Deserialize;

/// `greet`'s arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct GreetArgs {
    /// Whom to greet.
    name: String,
}

/// Greets someone, at once and never as a task.
#[tool]
pub(crate) async fn greet(args: GreetArgs) -> String {
    format!("Hello, {}!", args.name)
}

/// `slow_compute`'s arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct ComputeArgs {
    /// How long to work, in seconds (at most an hour).
    seconds: u64,
    /// What the work is called.
    #[serde(default)]
    label: Option<String>,
}

/// Works for `seconds`, then says so; a task when it takes longer than
/// the server's creation window. Stops as soon as its task is cancelled.
#[tool(task)]
pub(crate) async fn slow_compute(args: ComputeArgs, ctx: Ctx) -> Result<String, ToolError> {
    let seconds = args.seconds.min(3600);
    let label = args.label.unwrap_or_else(|| "work".to_owned());
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs(seconds)) => {
            Ok(format!("computed {label} in {seconds} s"))
        }
        () = ctx.cancelled() => Err(ToolError::new(format!("{label} was cancelled"))),
    }
}

/// A job that always runs as a task and fails as a tool does: its task
/// completes with an `isError` result.
#[tool(task = "required")]
pub(crate) async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(500)).await;
    Err(ToolError::new("The job failed: the input data is corrupt."))
}

/// A job that always runs as a task and fails with a JSON-RPC error: its
/// task fails, carrying the error.
#[tool(task = "required")]
pub(crate) async fn protocol_error_job() -> Result<String, McpError> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    Err(McpError::Other(ErrorObject {
        code: -32603,
        message: "The job's backend refused the request".to_owned(),
        data: None,
    }))
}

/// `confirm_delete`'s arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct FileArgs {
    /// The file to delete.
    filename: String,
}

/// Asks whether to go on.
#[derive(ElicitForm)]
pub(crate) struct Confirm {
    /// Go on?
    confirm: bool,
}

/// How many files `confirm_delete` deleted in this process: the fleet
/// tests add it up over the instances to see each task finish once.
static DELETIONS: AtomicUsize = AtomicUsize::new(0);

/// Deletes a file once the user confirms, asking inside its task.
#[tool(task = "required")]
pub(crate) async fn confirm_delete(args: FileArgs, ctx: Ctx) -> Reply<()> {
    let file = args.filename;
    match ctx.answer::<Confirm>("confirm") {
        Answer::Accept(Confirm { confirm: true }) => {
            DELETIONS.fetch_add(1, Ordering::SeqCst);
            Reply::text(format!("deleted '{file}'"))
        }
        Answer::Accept(_) | Answer::Decline | Answer::Cancel => {
            Reply::text(format!("kept '{file}'"))
        }
        Answer::Missing | Answer::Invalid(_) => {
            Reply::ask("confirm", Confirm::form(format!("Delete '{file}'?")))
        }
    }
}

/// How many files `confirm_delete` deleted in this process.
#[tool(read_only)]
pub(crate) async fn task_deletions() -> String {
    DELETIONS.load(Ordering::SeqCst).to_string()
}

/// Asks for a name.
#[derive(ElicitForm)]
pub(crate) struct Name {
    /// Your name.
    name: String,
}

/// Asks two questions at once inside its task, then greets.
#[tool(task = "required")]
pub(crate) async fn multi_input(ctx: Ctx) -> Reply<()> {
    let name = ctx.answer::<Name>("name");
    let confirm = ctx.answer::<Confirm>("confirm");
    match (name, confirm) {
        (Answer::Accept(Name { name }), Answer::Accept(Confirm { confirm: true })) => {
            Reply::text(format!("Hello, {name}, confirmed."))
        }
        (Answer::Accept(Name { name }), _) => Reply::text(format!("Hello, {name}, unconfirmed.")),
        _ => Reply::ask("name", Name::form("What is your name?"))
            .and_ask("confirm", Confirm::form("Confirm?")),
    }
}

/// Asks for a name in the call (before its task exists), then greets from
/// inside the task.
#[tool(task = "required")]
pub(crate) async fn test_tool_with_task(ctx: Ctx) -> Reply<()> {
    match ctx.answer::<Name>("user_name") {
        Answer::Accept(Name { name }) => Reply::text(format!("Hello, {name}! (computed in task)")),
        _ => Reply::ask("user_name", Name::form("What is your name?")).before_task(),
    }
}
