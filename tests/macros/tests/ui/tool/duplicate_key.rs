use mcp_runtime::tool;

/// Says hello.
#[tool(name = "hello", name = "greet")]
async fn hello() -> String {
    "hello".to_owned()
}

fn main() {}
