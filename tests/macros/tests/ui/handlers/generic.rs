use mcp_runtime::prelude::*;

struct Desk<T>(T);

#[handlers]
impl<T: Send + Sync + 'static> Desk<T> {
    /// Says hello.
    #[tool]
    async fn hello(&self) -> String {
        "Hello!".into()
    }
}

fn main() {}
