use mcp_runtime::tool;

#[tool]
async fn hello() -> String {
    "hello".to_owned()
}

fn main() {
    // Registering it adds no second error: a stub handler is emitted.
    let _ = mcp_runtime::prelude::Server::builder("test", "1").tool(hello {});
}
