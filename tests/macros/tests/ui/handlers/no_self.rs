use mcp_runtime::prelude::*;

struct Desk;

#[handlers]
impl Desk {
    /// Says hello.
    #[tool]
    async fn hello() -> String {
        "Hello!".into()
    }
}

fn main() {
    let _ = Server::builder("test", "1").handlers(Desk);
}
