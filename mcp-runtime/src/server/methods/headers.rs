//! The HTTP header rules of 2026-07-28 (SEP-2243): headers that mirror the
//! body must agree with it. Header names are case-insensitive; values are
//! compared case-sensitively after trimming surrounding whitespace.

use std::borrow::Cow;

use base64::Engine as _;
use serde_json::Value;

use crate::receive_context::HttpRequestHeaders;
use crate::schema::{JsonObject, McpError, Tool, request_methods};
use crate::server::handler::ToolArguments;

/// `MCP-Protocol-Version` must be present and equal the `_meta` version.
pub(crate) fn check_protocol_version(
    headers: &HttpRequestHeaders,
    meta_version: &str,
) -> Result<(), McpError> {
    match headers.protocol_version.as_deref() {
        None => Err(mismatch("the MCP-Protocol-Version header is required")),
        Some(v) if v == meta_version => Ok(()),
        Some(v) => Err(mismatch(format!(
            "MCP-Protocol-Version header value {v:?} does not match body value {meta_version:?}"
        ))),
    }
}

/// `Mcp-Method` must equal the method, and `Mcp-Name` the target of
/// `tools/call`, `prompts/get` (`params.name`) and `resources/read`
/// (`params.uri`).
pub(crate) fn check_method_and_name(
    headers: &HttpRequestHeaders,
    method: &str,
    params: &JsonObject,
) -> Result<(), McpError> {
    match headers.method.as_deref() {
        None => return Err(mismatch("the Mcp-Method header is required")),
        Some(m) if m == method => {}
        Some(m) => {
            return Err(mismatch(format!(
                "Mcp-Method header value {m:?} does not match body value {method:?}"
            )));
        }
    }
    let Some(key) = request_methods::target_param(method) else {
        return Ok(());
    };
    let Some(body) = params.get(key).and_then(Value::as_str) else {
        // The body lacks its target; the method's own validation reports it.
        return Ok(());
    };
    match headers.name.as_deref() {
        None => Err(mismatch("the Mcp-Name header is required for this method")),
        Some(raw) => {
            let name = decode_value(raw).ok_or_else(|| {
                mismatch("the Mcp-Name header has a malformed base64 value".to_owned())
            })?;
            if name == body {
                Ok(())
            } else {
                Err(mismatch(format!(
                    "Mcp-Name header value {name:?} does not match body value {body:?}"
                )))
            }
        }
    }
}

/// Every argument the tool marks with `x-mcp-header` and the client sent
/// (non-null) must be mirrored in its `Mcp-Param-{Name}` header.
pub(crate) fn check_param_headers(
    headers: &HttpRequestHeaders,
    tool: &Tool,
    arguments: &ToolArguments,
) -> Result<(), McpError> {
    let Some(Value::Object(properties)) = tool.input_schema.get("properties") else {
        return Ok(());
    };
    for (property, schema) in properties {
        let Some(header) = schema.get("x-mcp-header").and_then(Value::as_str) else {
            continue;
        };
        let value = match arguments.get(property) {
            None | Some(Value::Null) => continue,
            Some(value) => value,
        };
        let sent = headers
            .params
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(header))
            .map(|(_, v)| v.as_str());
        let Some(raw) = sent else {
            return Err(mismatch(format!(
                "the Mcp-Param-{header} header is required when argument {property:?} is present"
            )));
        };
        let decoded = decode_value(raw)
            .ok_or_else(|| mismatch(format!("the Mcp-Param-{header} header is malformed")))?;
        if !param_matches(&decoded, &value) {
            return Err(mismatch(format!(
                "Mcp-Param-{header} header value {decoded:?} does not match argument {property:?}"
            )));
        }
    }
    Ok(())
}

fn param_matches(header: &str, value: &Value) -> bool {
    match value {
        Value::String(s) => header == s,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => match (header.parse::<f64>(), n.as_f64()) {
            (Ok(h), Some(v)) => h == v,
            _ => false,
        },
        _ => false,
    }
}

/// Decodes the `=?base64?...?=` sentinel; other values pass through
/// (borrowed: the usual header is checked without a copy).
fn decode_value(raw: &str) -> Option<Cow<'_, str>> {
    match raw
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()?;
            String::from_utf8(bytes).ok().map(Cow::Owned)
        }
        None => Some(Cow::Borrowed(raw)),
    }
}

fn mismatch(detail: impl Into<String>) -> McpError {
    McpError::HeaderMismatch {
        detail: detail.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_sentinel_is_decoded() {
        assert_eq!(decode_value("=?base64?w6k=?=").as_deref(), Some("é"));
        assert_eq!(decode_value("plain").as_deref(), Some("plain"));
        assert_eq!(decode_value("=?base64?***?="), None);
    }

    #[test]
    fn numbers_compare_numerically() {
        assert!(param_matches("42", &Value::from(42)));
        assert!(param_matches("42.0", &Value::from(42)));
        assert!(!param_matches("43", &Value::from(42)));
        assert!(param_matches("true", &Value::from(true)));
        assert!(!param_matches("True", &Value::from(true)));
    }
}
