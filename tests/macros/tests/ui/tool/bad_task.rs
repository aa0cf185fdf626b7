use mcp_runtime::prelude::*;

/// Deploys, maybe as a task.
#[tool(task = "sometimes")]
async fn deploy() -> String {
    String::new()
}

/// A prompt cannot run as a task.
#[prompt(task)]
async fn briefing() -> String {
    String::new()
}

fn main() {}
