use mcp_runtime::resource;

/// A team's roster.
#[resource(uri_template = "team://{team}/roster")]
async fn roster() -> String {
    String::new()
}

fn main() {
    let _ = mcp_runtime::prelude::Server::builder("test", "1").handler::<roster>();
}
