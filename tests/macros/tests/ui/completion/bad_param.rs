use mcp_runtime::prelude::*;

type Text = String;

/// The teams that start with what was typed.
#[completion(template = "desk://teams/{team}", argument = "team")]
async fn teams(typed: Text) -> Vec<String> {
    vec![typed]
}

fn main() {
    let _ = Server::builder("test", "1").handler::<teams>();
}
