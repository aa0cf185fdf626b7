use mcp_runtime::tool;

/// Says hello.
#[tool(name = "say hello!")]
async fn hello() -> String {
    "hello".to_owned()
}

fn main() {}
