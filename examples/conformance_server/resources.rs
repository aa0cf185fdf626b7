//! The resources and the resource template.

use mcp_runtime::prelude::*;
use mcp_runtime::schema::ResourceContents;
use serde::Deserialize;
use serde_json::json;

use crate::fixtures::PNG_1X1;

/// A static text resource.
#[resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain"
)]
pub(crate) async fn static_text() -> String {
    "This is the content of the static text resource.".to_owned()
}

/// A static binary resource: a 1x1 PNG.
#[resource(
    uri = "test://static-binary",
    name = "static-binary",
    mime_type = "image/png"
)]
pub(crate) async fn static_binary() -> ResourceContents {
    ResourceContents::blob("test://static-binary", "image/png", PNG_1X1)
}

/// The variables of `test://template/{id}/data`.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct DataVars {
    /// The item's id.
    id: String,
}

/// The data of one item, by id.
#[resource(
    uri_template = "test://template/{id}/data",
    name = "template-data",
    mime_type = "application/json"
)]
pub(crate) async fn template_data(vars: DataVars) -> String {
    json!({
        "id": vars.id,
        "templateTest": true,
        "data": format!("Data for ID: {}", vars.id),
    })
    .to_string()
}
