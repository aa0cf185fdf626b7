use mcp_runtime::prompt;

/// A greeting.
#[prompt]
async fn greeting() -> bool {
    true
}

fn main() {}
