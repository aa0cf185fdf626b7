use mcp_runtime::prelude::*;

/// Not annotated.
async fn hello() -> String {
    "Hello!".into()
}

fn main() {
    let _ = hello;
    let _ = Server::builder("test", "1").handler::<String>();
}
