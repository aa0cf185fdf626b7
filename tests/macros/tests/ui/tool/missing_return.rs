use mcp_runtime::tool;

/// Does nothing.
#[tool]
async fn nothing() {}

fn main() {
    // Registering it adds no second error: a stub handler is emitted.
    let _ = mcp_runtime::prelude::Server::builder("test", "1").tool(nothing {});
}
