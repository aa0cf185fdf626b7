use std::collections::HashMap;

use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Labels {
    /// Labels to set.
    labels: HashMap<String, String>,
}

fn main() {}
