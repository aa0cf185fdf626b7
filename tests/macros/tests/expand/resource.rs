use std::collections::BTreeMap;

use mcp_runtime::prelude::*;

/// The project's README.
#[resource(uri = "file:///README.md", mime_type = "text/markdown")]
async fn readme() -> String {
    "# Readme".to_owned()
}

/// One item's data.
#[resource(uri_template = "test://items/{id}")]
async fn item(vars: BTreeMap<String, String>) -> Result<String, McpError> {
    Ok(vars.get("id").cloned().unwrap_or_default())
}

fn main() {}
