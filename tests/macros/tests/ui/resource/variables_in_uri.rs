use mcp_runtime::resource;

/// One item's data.
#[resource(uri = "test://items/{id}")]
async fn item() -> String {
    String::new()
}

fn main() {}
