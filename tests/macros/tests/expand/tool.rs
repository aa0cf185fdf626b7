use std::collections::BTreeMap;

use mcp_runtime::prelude::*;

/// Counts the arguments.
#[tool(name = "count-args", read_only, idempotent)]
async fn count(args: BTreeMap<String, String>, _ctx: Ctx) -> Result<String, ToolError> {
    Ok(args.len().to_string())
}

fn main() {}
