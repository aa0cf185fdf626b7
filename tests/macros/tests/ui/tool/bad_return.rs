use mcp_runtime::tool;

/// Counts to three.
#[tool]
async fn count() -> u32 {
    3
}

fn main() {}
