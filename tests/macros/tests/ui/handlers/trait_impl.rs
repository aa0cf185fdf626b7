use mcp_runtime::prelude::*;

struct Desk;

trait Greeter {
    async fn hello(&self) -> String;
}

#[handlers]
impl Greeter for Desk {
    /// Says hello.
    #[tool]
    async fn hello(&self) -> String {
        "Hello!".into()
    }
}

fn main() {}
