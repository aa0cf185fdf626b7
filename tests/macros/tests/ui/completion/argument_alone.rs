use mcp_runtime::prelude::*;

/// The teams that start with what was typed.
#[completion(argument = "team")]
async fn teams(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

fn main() {
    let _ = Server::builder("test", "1").handler::<teams>();
}
