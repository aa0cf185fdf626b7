//! Reading one JSON-RPC message from bytes.

use serde_json::Value;

use super::Response;
use crate::schema::{JSONRPC_VERSION, JsonObject, McpError, RequestId};

/// A client request, structurally valid as JSON-RPC.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The id.
    pub id: RequestId,
    /// The method.
    pub method: String,
    /// The params, if any (not yet validated).
    pub params: Option<Value>,
}

/// One message from a client.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A request: it gets exactly one response.
    Request(Request),
    /// A notification: it gets no response.
    Notification {
        /// The notification method.
        method: String,
        /// Its params, if any.
        params: Option<JsonObject>,
    },
}

/// Parses one message. A message that is not a valid JSON-RPC request or
/// notification yields the error response to send back (`-32700` for bad
/// JSON, `-32600` otherwise), carrying the id when one could be read.
pub fn parse_message(bytes: &[u8]) -> Result<Incoming, Box<Response>> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        Box::new(Response::error(
            None,
            McpError::ParseError {
                detail: e.to_string(),
            },
        ))
    })?;
    let Value::Object(mut object) = value else {
        return Err(invalid(
            None,
            "a message must be a JSON object (batches are not supported)",
        ));
    };
    let id = match object.get("id") {
        None => None,
        Some(raw) => match RequestId::from_json(raw) {
            Some(id) => Some(id),
            None => return Err(invalid(None, "\"id\" must be a string or an integer")),
        },
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some(JSONRPC_VERSION) {
        return Err(invalid(id, "\"jsonrpc\" must be \"2.0\""));
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        Some(_) => return Err(invalid(id, "\"method\" must be a string")),
        None if object.contains_key("result") || object.contains_key("error") => {
            return Err(invalid(id, "a server does not accept responses"));
        }
        None => return Err(invalid(id, "\"method\" is required")),
    };
    let params = object.remove("params");
    match id {
        Some(id) => Ok(Incoming::Request(Request { id, method, params })),
        None => {
            let params = match params {
                None => None,
                Some(Value::Object(params)) => Some(params),
                Some(_) => return Err(invalid(None, "notification params must be an object")),
            };
            Ok(Incoming::Notification { method, params })
        }
    }
}

fn invalid(id: Option<RequestId>, detail: &str) -> Box<Response> {
    Box::new(Response::error(
        id,
        McpError::InvalidRequest {
            detail: detail.to_owned(),
        },
    ))
}
