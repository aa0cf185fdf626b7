//! The [`Response`] to one request, as a transport writes it back.

use std::fmt::Write as _;

use crate::schema::{JsonRpcErrorResponse, JsonRpcVersion, McpError, RequestId};
use crate::server::legacy::Session;

/// The response to one request: a serialised result or an error.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    id: Option<RequestId>,
    body: Body,
    /// The 2025-era session this response opens (to `initialize`).
    opened: Option<Session>,
    /// Whether it answers a 2025-era request.
    legacy: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Body {
    /// The result object, already serialised as compact JSON.
    Result(String),
    Error(McpError),
    /// The client cancelled the request: nothing is sent.
    Cancelled,
}

impl Response {
    /// A successful response carrying `result`, already serialised.
    pub(crate) fn result(id: RequestId, result: String) -> Self {
        Self {
            id: Some(id),
            body: Body::Result(result),
            opened: None,
            legacy: false,
        }
    }

    /// The non-response of a request the client cancelled: a transport
    /// sends nothing for it ([`Self::is_cancelled`]).
    #[cfg_attr(not(any(feature = "http", feature = "stdio")), allow(dead_code))]
    pub(crate) fn cancelled(id: RequestId) -> Self {
        Self {
            id: Some(id),
            body: Body::Cancelled,
            opened: None,
            legacy: false,
        }
    }

    /// Whether the client cancelled the request, so that nothing is sent.
    pub fn is_cancelled(&self) -> bool {
        self.body == Body::Cancelled
    }

    /// This response marked as answering a 2025-era request.
    pub(crate) fn in_2025_era(mut self) -> Self {
        self.legacy = true;
        self
    }

    /// Whether it answers a 2025-era request (`initialize`, or a request
    /// served in the 2025 era): on HTTP its errors travel with status 200.
    pub fn is_2025_era(&self) -> bool {
        self.legacy
    }

    /// This response with the session it opens.
    pub(crate) fn opening(mut self, session: Session) -> Self {
        self.opened = Some(session);
        self
    }

    /// The 2025-era session this response opens: the transport keeps it
    /// (an HTTP session under its id, or the stdio connection's) and hands
    /// it back with every later message of that client.
    pub fn opened_session(&self) -> Option<&Session> {
        self.opened.as_ref()
    }

    /// An error response; `id` is `None` only when the request's id was unreadable.
    pub fn error(id: Option<RequestId>, error: McpError) -> Self {
        Self {
            id,
            body: Body::Error(error),
            opened: None,
            legacy: false,
        }
    }

    /// The id of the request this answers.
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The error, when this is an error response.
    pub fn error_value(&self) -> Option<&McpError> {
        match &self.body {
            Body::Error(e) => Some(e),
            Body::Result(_) | Body::Cancelled => None,
        }
    }

    /// The whole JSON-RPC response as compact, single-line JSON. A
    /// cancelled request's is the `-32800` error some clients expect, for
    /// a transport that must send something.
    pub fn to_json(&self) -> String {
        match &self.body {
            Body::Cancelled => {
                let response = JsonRpcErrorResponse {
                    jsonrpc: JsonRpcVersion,
                    id: self.id.clone(),
                    error: crate::schema::ErrorObject {
                        code: -32800,
                        message: "Request cancelled".to_owned(),
                        data: None,
                    },
                };
                serde_json::to_string(&response).unwrap_or_default()
            }
            Body::Result(result) => {
                const HEAD: &str = r#"{"jsonrpc":"2.0","id":"#;
                const RESULT: &str = r#","result":"#;
                let mut json =
                    String::with_capacity(HEAD.len() + 24 + RESULT.len() + result.len() + 1);
                json.push_str(HEAD);
                match &self.id {
                    Some(RequestId::Number(n)) => {
                        let _ = write!(json, "{n}");
                    }
                    Some(RequestId::Unsigned(n)) => {
                        let _ = write!(json, "{n}");
                    }
                    Some(RequestId::String(s)) => match serde_json::to_string(s) {
                        Ok(quoted) => json.push_str(&quoted),
                        Err(_) => json.push_str("null"),
                    },
                    None => json.push_str("null"),
                }
                json.push_str(RESULT);
                json.push_str(result);
                json.push('}');
                json
            }
            Body::Error(error) => {
                let response = JsonRpcErrorResponse {
                    jsonrpc: JsonRpcVersion,
                    id: self.id.clone(),
                    error: error.to_object(),
                };
                serde_json::to_string(&response).unwrap_or_else(|_| {
                    r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#
                        .to_owned()
                })
            }
        }
    }
}
