use mcp_runtime::tool;

/// Echoes its argument.
#[tool]
async fn echo<T: Into<String>>(text: T) -> String {
    text.into()
}

fn main() {
    // Registering it adds no second error: a stub handler is emitted.
    let _ = mcp_runtime::prelude::Server::builder("test", "1").tool(echo {});
}
