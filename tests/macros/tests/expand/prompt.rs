use std::collections::BTreeMap;

use mcp_runtime::prelude::*;

/// The words a greeting starts with.
struct Salutation(&'static str);

/// A greeting for a person.
#[prompt(title = "Greeting")]
async fn greeting(args: BTreeMap<String, String>, salutation: Shared<Salutation>) -> String {
    let name = args.get("name").cloned().unwrap_or_default();
    [salutation.0, " ", &name, "."].concat()
}

fn main() {}
