//! The common request parameter shapes: `RequestParams` and `PaginatedRequestParams`.

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// Parameters of a request that carries nothing but its `_meta`
/// (e.g. `server/discover`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// The per-request `_meta` (protocol version, client capabilities, ...).
    #[serde(rename = "_meta")]
    pub meta: JsonObject,
}

/// Parameters of a paginated list request (`tools/list`, `prompts/list`,
/// `resources/list`, `resources/templates/list`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// The per-request `_meta`.
    #[serde(rename = "_meta")]
    pub meta: JsonObject,
    /// The opaque cursor of the page to return, from a previous `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}
