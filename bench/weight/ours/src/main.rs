//! A stdio MCP server with one tool, `greet`, on mcp-runtime with the
//! `server` and `stdio` features only.

use mcp_runtime::prelude::*;
use serde::Deserialize;

/// The arguments of `greet`.
#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

/// Greets someone.
#[tool]
async fn greet(args: GreetArgs) -> String {
    format!("Hello, {}!", args.name)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("weight-ours", "0.1.0")
        .tool(greet {})
        .build()?;
    mcp_runtime::transport::stdio::serve(server).await?;
    Ok(())
}
