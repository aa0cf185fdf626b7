use mcp_runtime::resource;

/// The README.
#[resource(uri = "file:///readme", uri_template = "file:///{name}")]
async fn readme() -> String {
    "# Readme".to_owned()
}

fn main() {}
