//! JSON-RPC and MCP error codes, the wire error object, and [`McpError`].

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{ClientCapabilities, SUPPORTED_PROTOCOL_VERSIONS};

/// Numeric error codes used by MCP 2026-07-28.
pub mod codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON sent is not a valid JSON-RPC request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist, was removed, or is not offered by this server.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameters (including missing `_meta` keys).
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal server error.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// An HTTP header disagrees with the body, or a required one is missing.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// The request needs a client capability the client did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// The protocol version of the request is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
}

/// The fixed message of every refused `requestState`; the reason only goes
/// to the server log.
pub const INVALID_REQUEST_STATE_MESSAGE: &str = "Invalid or expired \"requestState\"";

/// The `error` member of a JSON-RPC error response, as it travels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: i32,
    /// A short, single-sentence description.
    pub message: String,
    /// Optional structured detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// An error a server answers a request with, typed by its meaning.
///
/// [`McpError::code`] gives the JSON-RPC code and [`McpError::to_object`]
/// the exact wire object, including the `data` shapes the specification
/// fixes for `-32021` and `-32022`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpError {
    /// `-32700`: the body is not JSON.
    ParseError {
        /// What the JSON parser reported.
        detail: String,
    },
    /// `-32600`: JSON, but not a JSON-RPC request object.
    InvalidRequest {
        /// Why the message is not a valid request.
        detail: String,
    },
    /// `-32601`: the method is unknown, removed in 2026-07-28, or not offered.
    MethodNotFound {
        /// The method the client asked for.
        method: String,
    },
    /// `-32602` for a missing or malformed `params._meta` (HTTP 400).
    InvalidMeta {
        /// What is wrong with `_meta`.
        detail: String,
    },
    /// `-32602`: the parameters of the method are invalid.
    InvalidParams {
        /// What is wrong, in one sentence.
        message: String,
        /// Optional structured detail.
        data: Option<Value>,
    },
    /// `-32602` for a resource URI that names nothing (`data.uri`).
    ResourceNotFound {
        /// The URI the client asked for.
        uri: String,
    },
    /// `-32602` with the fixed message for a `requestState` that failed
    /// verification. The reason never reaches the client.
    InvalidRequestState,
    /// `-32603`: the server failed. The detail is logged, not sent.
    Internal {
        /// What went wrong (logged by the server, not sent).
        detail: String,
    },
    /// `-32020`: an HTTP header is missing or disagrees with the body.
    HeaderMismatch {
        /// Which header and how.
        detail: String,
    },
    /// `-32021`: the request needs client capabilities that were not declared.
    MissingClientCapability {
        /// The capabilities that are required, as a capabilities object.
        required: Box<ClientCapabilities>,
    },
    /// `-32600` (HTTP 403 with an `insufficient_scope` challenge): the
    /// caller's token lacks scopes the handler needs.
    InsufficientScope {
        /// Every scope the operation needs (not only the missing ones).
        scopes: Vec<String>,
        /// The protected-resource metadata URL the challenge points to.
        resource_metadata: Option<String>,
    },
    /// `-32022`: the request's protocol version is not supported.
    UnsupportedProtocolVersion {
        /// The version the client asked for.
        requested: String,
    },
    /// Any other error object, passed through as it is.
    Other(ErrorObject),
}

impl McpError {
    /// `-32602` with a message.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::InvalidParams {
            message: message.into(),
            data: None,
        }
    }

    /// `-32603` with a detail that is logged, not sent.
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::Internal {
            detail: detail.into(),
        }
    }

    /// The JSON-RPC error code.
    pub fn code(&self) -> i32 {
        match self {
            Self::ParseError { .. } => codes::PARSE_ERROR,
            Self::InvalidRequest { .. } | Self::InsufficientScope { .. } => codes::INVALID_REQUEST,
            Self::MethodNotFound { .. } => codes::METHOD_NOT_FOUND,
            Self::InvalidMeta { .. }
            | Self::InvalidParams { .. }
            | Self::ResourceNotFound { .. }
            | Self::InvalidRequestState => codes::INVALID_PARAMS,
            Self::Internal { .. } => codes::INTERNAL_ERROR,
            Self::HeaderMismatch { .. } => codes::HEADER_MISMATCH,
            Self::MissingClientCapability { .. } => codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
            Self::UnsupportedProtocolVersion { .. } => codes::UNSUPPORTED_PROTOCOL_VERSION,
            Self::Other(object) => object.code,
        }
    }

    /// The error object as it goes on the wire.
    pub fn to_object(&self) -> ErrorObject {
        let (message, data) = match self {
            Self::ParseError { detail } => (format!("Parse error: {detail}"), None),
            Self::InvalidRequest { detail } => (format!("Invalid request: {detail}"), None),
            Self::MethodNotFound { method } => (format!("Method not found: {method}"), None),
            Self::InvalidMeta { detail } => (format!("Invalid params: {detail}"), None),
            Self::InvalidParams { message, data } => (message.clone(), data.clone()),
            Self::ResourceNotFound { uri } => {
                ("Resource not found".to_owned(), Some(json!({ "uri": uri })))
            }
            Self::InvalidRequestState => (INVALID_REQUEST_STATE_MESSAGE.to_owned(), None),
            Self::Internal { .. } => ("Internal error".to_owned(), None),
            Self::HeaderMismatch { detail } => (format!("Header mismatch: {detail}"), None),
            Self::InsufficientScope { scopes, .. } => (
                format!("Forbidden: this needs the scopes {}", scopes.join(" ")),
                Some(json!({ "requiredScopes": scopes })),
            ),
            Self::MissingClientCapability { required } => (
                format!(
                    "Missing required client capability: {}",
                    required.names().join(", ")
                ),
                Some(json!({ "requiredCapabilities": required })),
            ),
            Self::UnsupportedProtocolVersion { requested } => (
                "Unsupported protocol version".to_owned(),
                Some(json!({
                    "supported": SUPPORTED_PROTOCOL_VERSIONS,
                    "requested": requested,
                })),
            ),
            Self::Other(object) => return object.clone(),
        };
        ErrorObject {
            code: self.code(),
            message,
            data,
        }
    }
}

impl std::fmt::Display for McpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Internal { detail } => write!(f, "internal error: {detail}"),
            other => {
                let object = other.to_object();
                write!(f, "{} ({})", object.message, object.code)
            }
        }
    }
}

impl std::error::Error for McpError {}

impl From<ErrorObject> for McpError {
    fn from(object: ErrorObject) -> Self {
        Self::Other(object)
    }
}
