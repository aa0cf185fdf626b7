use mcp_runtime::prelude::*;

struct Desk {
    greeting: String,
}

#[handlers]
impl Desk {
    /// Greets the caller.
    #[tool]
    async fn greet(&self) -> String {
        self.greeting.clone()
    }
}

fn main() {}
