use mcp_runtime::prelude::*;

struct Desk;

impl Desk {
    /// Says hello, but the block has no `#[handlers]`.
    async fn hello(&self) -> String {
        "Hello!".into()
    }
}

fn main() {
    let _ = Server::builder("test", "1").handlers(Desk);
}
