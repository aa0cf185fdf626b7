use mcp_runtime::prelude::*;

/// Runs the nightly report; always as a task.
#[tool(task = "required", scopes = ["reports:run"])]
async fn nightly_report(ctx: Ctx) -> String {
    if ctx.is_cancelled() { "stopped".to_owned() } else { "done".to_owned() }
}

fn main() {}
