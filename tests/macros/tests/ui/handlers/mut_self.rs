use mcp_runtime::prelude::*;

struct Desk {
    count: u32,
}

#[handlers]
impl Desk {
    /// Counts.
    #[tool]
    async fn count(&mut self) -> String {
        self.count += 1;
        self.count.to_string()
    }
}

fn main() {
    let _ = Server::builder("test", "1").handlers(Desk { count: 0 });
}
