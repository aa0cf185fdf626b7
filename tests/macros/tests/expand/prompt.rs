use std::collections::BTreeMap;

use mcp_runtime::prelude::*;

/// A greeting for a person.
#[prompt(title = "Greeting")]
async fn greeting(args: BTreeMap<String, String>) -> String {
    let name = args.get("name").cloned().unwrap_or_default();
    ["Say hello to ", &name, "."].concat()
}

fn main() {}
