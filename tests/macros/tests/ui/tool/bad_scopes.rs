use mcp_runtime::prelude::*;

/// Deploys.
#[tool(scopes = ["deploy write", "", "café", "deploy:write"])]
async fn deploy() -> String {
    String::new()
}

/// Reads the log.
#[tool(scopes = "logs:read")]
async fn logs() -> String {
    String::new()
}

fn main() {}
