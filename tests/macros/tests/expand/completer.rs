use mcp_runtime::prelude::*;

/// The teams that start with what was typed.
#[completion(template = "desk://teams/{team}", argument = "team")]
async fn teams(typed: &str, ctx: Ctx) -> Vec<String> {
    let _ = ctx;
    vec![typed.to_owned()]
}

fn main() {}
