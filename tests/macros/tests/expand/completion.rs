use mcp_runtime::prelude::*;
use mcp_runtime::schema::CompletionArgument;

/// Suggests colours.
#[completion]
async fn colours(argument: CompletionArgument) -> Vec<String> {
    argument.value.split(',').map(str::to_owned).collect()
}

fn main() {}
