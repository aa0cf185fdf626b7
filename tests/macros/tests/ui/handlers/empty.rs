use mcp_runtime::prelude::*;

struct Desk;

#[handlers]
impl Desk {
    /// Not a handler: no `#[tool]`.
    async fn hello(&self) -> String {
        "Hello!".into()
    }
}

fn main() {}
