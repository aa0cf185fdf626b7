use mcp_runtime::resource;

/// The README.
#[resource]
async fn readme() -> String {
    "# Readme".to_owned()
}

fn main() {
    // Registering it adds no second error: a stub handler is emitted.
    let _ = mcp_runtime::prelude::Server::builder("test", "1").resource(readme {});
}
