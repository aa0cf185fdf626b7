use mcp_runtime::prelude::*;

#[tool(description = " ")]
async fn hello() -> String {
    "hello".to_owned()
}

#[prompt(description = "")]
async fn greeting() -> String {
    "Say hello.".to_owned()
}

fn main() {}
