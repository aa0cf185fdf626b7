use mcp_runtime::prelude::*;

/// The teams that start with what was typed.
#[completion(prompt = "triage", argument = "team")]
async fn teams(typed: &str, again: String) -> Vec<String> {
    vec![typed.to_owned(), again]
}

fn main() {
    let _ = Server::builder("test", "1").handler::<teams>();
}
