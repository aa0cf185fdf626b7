use mcp_runtime::prelude::*;

struct Desk;

#[handlers]
impl Desk {
    /// Pages the on-call engineer.
    #[tool]
    async fn page(&self) -> String {
        "paged".into()
    }

    /// Pages the on-call engineer, now.
    #[tool(name = "page")]
    async fn page_now(&self) -> String {
        "paged".into()
    }
}

fn main() {
    let _ = Server::builder("test", "1").handlers(Desk);
}
