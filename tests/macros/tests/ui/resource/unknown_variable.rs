use mcp_runtime::resource;
use serde::Deserialize;

/// The variables of an order's resource.
#[derive(Deserialize, schemars::JsonSchema)]
struct Order {
    #[allow(dead_code)]
    id: String,
}

/// One order.
#[resource(uri_template = "orders://{order_id}")]
async fn order(vars: Order) -> String {
    let _ = vars;
    String::new()
}

fn main() {
    let _ = mcp_runtime::prelude::Server::builder("test", "1").resource_template(order {});
}
