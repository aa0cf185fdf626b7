//! A stdio MCP server with one tool, `greet`, on rmcp with the `server`,
//! `macros` and `transport-io` features.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;

/// The arguments of `greet`.
#[derive(Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

/// The server: its tool router, built once (`#[tool_handler(router =
/// ...)]`; by default the macro would build one for every call).
#[derive(Clone)]
struct Weight {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Weight {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// Greets someone.
    #[tool(description = "Greets someone.")]
    async fn greet(&self, Parameters(args): Parameters<GreetArgs>) -> String {
        format!("Hello, {}!", args.name)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Weight {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let running = Weight::new().serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
