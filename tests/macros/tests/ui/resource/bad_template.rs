use mcp_runtime::resource;
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
struct Vars {
    #[allow(dead_code)]
    id: String,
}

/// One item's data.
#[resource(uri_template = "test://items/{id}{rev}/data")]
async fn item(vars: Vars) -> String {
    let _ = vars;
    String::new()
}

fn main() {
    // Registering it adds no second error: a stub handler is emitted.
    let _ = mcp_runtime::prelude::Server::builder("test", "1").resource_template(item {});
}
