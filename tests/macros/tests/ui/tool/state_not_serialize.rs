use mcp_runtime::prelude::*;
use serde::Deserialize;

#[derive(ElicitForm)]
struct Confirm {
    /// Page Ada?
    ok: bool,
}

#[derive(Deserialize)]
enum Step {
    Asked,
}

/// Pages the on-call engineer.
#[tool]
async fn page(step: Resume<Step>) -> Result<Reply<Step>, ToolError> {
    match step.into_inner() {
        None => Ok(Reply::ask("confirm", Confirm::form("Page Ada?")).resume(Step::Asked)),
        Some(Step::Asked) => Ok(Reply::text("Paged.")),
    }
}

fn main() {}
