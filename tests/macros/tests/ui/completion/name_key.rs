use mcp_runtime::prelude::*;
use mcp_runtime::schema::CompletionArgument;

/// Suggests colours.
#[completion(name = "colours")]
async fn colours(argument: CompletionArgument) -> Vec<String> {
    argument.value.split(',').map(str::to_owned).collect()
}

fn main() {
    let _ = Server::builder("test", "1").handler::<colours>();
}
