use mcp_runtime::prelude::*;
use mcp_runtime::schema::CompletionArgument;

/// Suggests a number.
#[completion]
async fn numbers(argument: CompletionArgument) -> u32 {
    argument.value.len() as u32
}

fn main() {
    let _ = Server::builder("test", "1").handler::<numbers>();
}
