//! The 2025 era's lifecycle: `initialize`, whose result opens a session,
//! and the protocol versions of that era. 2026-07-28 removed both; a server
//! built on this crate still serves them to 2025-era clients.

use serde::{Deserialize, Serialize};

use super::{ClientCapabilities, Implementation, JsonObject, ServerCapabilities};

/// The 2025-era protocol versions a server built on this crate negotiates
/// in `initialize`, newest first.
pub const LEGACY_PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// The version `initialize` settles on: the client's, when it is one of
/// [`LEGACY_PROTOCOL_VERSIONS`], else the newest of them (the client then
/// decides whether it can go on).
pub fn negotiate_legacy_version(requested: &str) -> &'static str {
    LEGACY_PROTOCOL_VERSIONS
        .iter()
        .copied()
        .find(|v| *v == requested)
        .unwrap_or(LEGACY_PROTOCOL_VERSIONS[0])
}

/// Parameters of `initialize` (2025 era).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// The newest version the client supports.
    pub protocol_version: String,
    /// What the client can do, for the whole session.
    pub capabilities: ClientCapabilities,
    /// The client's self-description.
    pub client_info: Implementation,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `initialize` (2025 era).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the session speaks.
    pub protocol_version: String,
    /// What the server offers in this session.
    pub capabilities: ServerCapabilities,
    /// The server's self-description.
    pub server_info: Implementation,
    /// How to use the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_version_is_kept_and_any_other_gets_the_newest() {
        for v in LEGACY_PROTOCOL_VERSIONS {
            assert_eq!(negotiate_legacy_version(v), *v);
        }
        assert_eq!(negotiate_legacy_version("2024-11-05"), "2025-11-25");
        assert_eq!(negotiate_legacy_version("2026-07-28"), "2025-11-25");
        assert_eq!(negotiate_legacy_version(""), "2025-11-25");
    }
}
