//! Per-request `_meta`, implementation descriptions, log levels, progress tokens.

use serde::{Deserialize, Serialize};

use super::{ClientCapabilities, Icon};

/// Describes an MCP implementation (client or server).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the implementation does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Home page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons to display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
}

impl Implementation {
    /// An implementation with a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: None,
        }
    }
}

/// Log severities, lowest first (RFC 5424 order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debug detail.
    Debug,
    /// Informational.
    Info,
    /// Normal but significant.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// A progress token: a string or an integer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// Integer token.
    Number(i64),
    /// String token.
    String(String),
}

/// The parsed per-request `_meta` every 2026-07-28 request carries.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion` (required).
    pub protocol_version: String,
    /// `io.modelcontextprotocol/clientCapabilities` (required).
    pub client_capabilities: ClientCapabilities,
    /// `io.modelcontextprotocol/clientInfo` (optional).
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel` (optional, deprecated): no log
    /// notifications are sent for a request without it.
    pub log_level: Option<LoggingLevel>,
    /// `progressToken` (optional): opts the request into progress notifications.
    pub progress_token: Option<ProgressToken>,
}

impl RequestMeta {
    /// A `_meta` for the latest protocol version with the given capabilities.
    pub fn new(client_capabilities: ClientCapabilities) -> Self {
        Self {
            protocol_version: super::LATEST_PROTOCOL_VERSION.to_owned(),
            client_capabilities,
            client_info: None,
            log_level: None,
            progress_token: None,
        }
    }

    /// The `_meta` object as it goes on the wire.
    pub fn to_json(&self) -> super::JsonObject {
        use super::meta_keys as k;
        let mut object = super::JsonObject::new();
        object.insert(
            k::PROTOCOL_VERSION.into(),
            self.protocol_version.clone().into(),
        );
        object.insert(
            k::CLIENT_CAPABILITIES.into(),
            serde_json::to_value(&self.client_capabilities).unwrap_or_default(),
        );
        if let Some(info) = &self.client_info {
            object.insert(
                k::CLIENT_INFO.into(),
                serde_json::to_value(info).unwrap_or_default(),
            );
        }
        if let Some(level) = self.log_level {
            object.insert(
                k::LOG_LEVEL.into(),
                serde_json::to_value(level).unwrap_or_default(),
            );
        }
        if let Some(token) = &self.progress_token {
            object.insert(
                k::PROGRESS_TOKEN.into(),
                serde_json::to_value(token).unwrap_or_default(),
            );
        }
        object
    }
}

impl RequestMeta {
    /// Parses a request's `_meta` object, checking the required keys.
    ///
    /// `clientInfo` is optional and a malformed one is ignored (servers
    /// must not require it); a malformed `logLevel` or `progressToken` is
    /// an error, so a client never silently loses the notifications it
    /// asked for.
    pub fn from_json(meta: &super::JsonObject) -> Result<Self, String> {
        Self::from_entries(|key| meta.get(key).map(MetaEntry::Value))
    }

    /// Reads the entries `entry` finds by key (in a tree, or in the text
    /// the client sent): what [`Self::from_json`] checks, with the same
    /// errors.
    pub(crate) fn from_entries<'a>(
        entry: impl Fn(&str) -> Option<MetaEntry<'a>>,
    ) -> Result<Self, String> {
        use super::meta_keys as k;
        let protocol_version = match entry(k::PROTOCOL_VERSION) {
            Some(value) => value
                .string()
                .ok_or_else(|| format!("_meta[\"{}\"] must be a string", k::PROTOCOL_VERSION))?,
            None => return Err(format!("_meta[\"{}\"] is required", k::PROTOCOL_VERSION)),
        };
        let client_capabilities = match entry(k::CLIENT_CAPABILITIES) {
            Some(value) if value.is_object() => value
                .read()
                .map_err(|e| format!("_meta[\"{}\"] is malformed: {e}", k::CLIENT_CAPABILITIES))?,
            Some(_) => {
                return Err(format!(
                    "_meta[\"{}\"] must be an object",
                    k::CLIENT_CAPABILITIES
                ));
            }
            None => return Err(format!("_meta[\"{}\"] is required", k::CLIENT_CAPABILITIES)),
        };
        let client_info = entry(k::CLIENT_INFO).and_then(|v| v.read().ok());
        let log_level = entry(k::LOG_LEVEL)
            .map(|v| {
                v.read()
                    .map_err(|_| format!("_meta[\"{}\"] is not a logging level", k::LOG_LEVEL))
            })
            .transpose()?;
        let progress_token = entry(k::PROGRESS_TOKEN)
            .map(|v| {
                v.read().map_err(|_| {
                    format!(
                        "_meta[\"{}\"] must be a string or an integer",
                        k::PROGRESS_TOKEN
                    )
                })
            })
            .transpose()?;
        Ok(Self {
            protocol_version,
            client_capabilities,
            client_info,
            log_level,
            progress_token,
        })
    }
}

/// One entry of a request's `_meta`: a value of a tree, or the JSON text of
/// one as the client sent it (read without a tree in between).
#[derive(Debug, Clone, Copy)]
pub(crate) enum MetaEntry<'a> {
    /// A value of a `_meta` read into a tree.
    Value(&'a serde_json::Value),
    /// The JSON text of a value (what the server's dispatch reads).
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    Text(&'a str),
}

impl MetaEntry<'_> {
    /// The string it is, if it is one.
    fn string(self) -> Option<String> {
        match self {
            Self::Value(serde_json::Value::String(value)) => Some(value.clone()),
            Self::Value(_) => None,
            Self::Text(text) => serde_json::from_str(text).ok(),
        }
    }

    /// Whether it is an object.
    fn is_object(self) -> bool {
        match self {
            Self::Value(value) => value.is_object(),
            // The text of one JSON value, without white space around it.
            Self::Text(text) => text.starts_with('{'),
        }
    }

    /// It, read as a `T`.
    fn read<T: serde::de::DeserializeOwned>(self) -> Result<T, String> {
        match self {
            Self::Value(value) => T::deserialize(value).map_err(|e| e.to_string()),
            Self::Text(text) => serde_json::from_str(text).map_err(|e| e.to_string()),
        }
    }
}
