//! `server/discover`.

use serde::{Deserialize, Serialize};

use super::{CacheScope, JsonObject, ResultType, ServerCapabilities};

/// The result of `server/discover`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Always complete.
    #[serde(default)]
    pub result_type: ResultType,
    /// Protocol versions the server accepts.
    pub supported_versions: Vec<String>,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Freshness in milliseconds.
    pub ttl_ms: u64,
    /// Who may reuse the result.
    pub cache_scope: CacheScope,
    /// Result metadata (carries `io.modelcontextprotocol/serverInfo`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
