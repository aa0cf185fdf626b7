use mcp_runtime::tool;

struct Args {
    #[allow(dead_code)]
    city: String,
}

/// Tells the weather.
#[tool]
async fn weather(args: Args) -> String {
    let _ = args;
    "sunny".to_owned()
}

fn main() {}
