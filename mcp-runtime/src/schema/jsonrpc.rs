//! The JSON-RPC 2.0 envelope: ids, outgoing responses and notifications.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{ErrorObject, JSONRPC_VERSION};

/// A JSON-RPC request id: a string or an integer, never `null`.
///
/// Integers are read from `i64::MIN` to `u64::MAX` and written back
/// exactly as sent; a larger one (which JSON parsers read as a float) is
/// refused, saying the range ([`RequestId::RULE`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id that fits an `i64`, as most clients send.
    Number(i64),
    /// An integer id above `i64::MAX` (up to `u64::MAX`). An id read from
    /// the wire that fits an `i64` is always a [`Number`](Self::Number).
    Unsigned(u64),
    /// A string id.
    String(String),
}

impl RequestId {
    /// What an id must be, as a refusal says it.
    pub const RULE: &'static str = "\"id\" must be a string or an integer from \
                                    -9223372036854775808 to 18446744073709551615";

    /// Reads an id from a JSON value; `None` for anything but a string or
    /// an integer from `i64::MIN` to `u64::MAX` (`null`, floats, booleans,
    /// objects are not ids; see [`RequestId::RULE`]).
    pub fn from_json(value: &serde_json::Value) -> Option<Self> {
        match value {
            serde_json::Value::String(s) => Some(Self::String(s.clone())),
            serde_json::Value::Number(n) => n
                .as_i64()
                .map(Self::Number)
                .or_else(|| n.as_u64().map(Self::Unsigned)),
            _ => None,
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::Unsigned(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(value: i64) -> Self {
        Self::Number(value)
    }
}

impl From<&str> for RequestId {
    fn from(value: &str) -> Self {
        Self::String(value.to_owned())
    }
}

/// The literal `"2.0"`: serialises as such and refuses anything else.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(JSONRPC_VERSION)
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        if v == JSONRPC_VERSION {
            Ok(Self)
        } else {
            Err(serde::de::Error::custom(format!(
                "expected jsonrpc \"2.0\", got {v:?}"
            )))
        }
    }
}

/// A JSON-RPC request with typed params, as a client sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest<P> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The request id; unique among the sender's requests in flight.
    pub id: RequestId,
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// The method's parameters.
    pub params: P,
}

/// A JSON-RPC notification with typed params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcNotification<P> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The notification method, e.g. `notifications/progress`.
    pub method: String,
    /// The notification's parameters.
    pub params: P,
}

impl<P> JsonRpcNotification<P> {
    /// A notification of `method` with `params`.
    pub fn new(method: impl Into<String>, params: P) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            method: method.into(),
            params,
        }
    }
}

/// A successful JSON-RPC response carrying a typed result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcResultResponse<R> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

/// A JSON-RPC error response. `id` is omitted when the request's id could
/// not be read (the 2026-07-28 schema has no `null` id).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers, when it was readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integer_ids_up_to_u64_max_are_read_and_written_back_exactly() {
        for text in ["0", "-9223372036854775808", "9223372036854775807"] {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            let id = RequestId::from_json(&value).unwrap();
            assert!(matches!(id, RequestId::Number(_)), "{text}");
            assert_eq!(serde_json::to_string(&id).unwrap(), text);
        }
        for text in ["9223372036854775808", "18446744073709551615"] {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            let id = RequestId::from_json(&value).unwrap();
            assert_eq!(id.to_string(), text);
            assert_eq!(serde_json::to_string(&id).unwrap(), text);
            let read: RequestId = serde_json::from_str(text).unwrap();
            assert_eq!(read, id);
        }
    }

    #[test]
    fn what_is_not_an_id_is_refused() {
        for value in [
            json!(null),
            json!(true),
            json!(1.5),
            json!([1]),
            serde_json::from_str("18446744073709551616").unwrap(),
            serde_json::from_str("1e30").unwrap(),
        ] {
            assert_eq!(RequestId::from_json(&value), None, "{value}");
        }
        assert!(RequestId::RULE.contains("-9223372036854775808 to 18446744073709551615"));
    }
}
