use mcp_runtime::prompt;

/// A greeting.
#[prompt(read_only)]
async fn greeting() -> String {
    "Say hello.".to_owned()
}

fn main() {
    // Registering it adds no second error: a stub handler is emitted.
    let _ = mcp_runtime::prelude::Server::builder("test", "1").prompt(greeting {});
}
