use mcp_runtime::tool;

struct Greeter;

impl Greeter {
    /// Says hello.
    #[tool]
    async fn hello(&self) -> String {
        "hello".to_owned()
    }
}

fn main() {}
