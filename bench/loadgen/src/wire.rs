//! What goes on the wire: the `tools/call` bodies and headers a 2026-07-28
//! client sends, the messages of a 2025-era session (`initialize`,
//! `notifications/initialized`, a `tools/call` without `_meta`, `ping`),
//! and the reading of the answers, as JSON or as an SSE stream whose
//! `data:` lines carry the JSON-RPC messages.

use serde_json::{Map, Value, json};

/// The protocol revision every request declares.
pub(crate) const PROTOCOL_VERSION: &str = "2026-07-28";

/// The revision a 2025-era session asks for in `initialize`, and names in
/// the `MCP-Protocol-Version` header of every later message.
pub(crate) const LEGACY_PROTOCOL_VERSION: &str = "2025-11-25";

/// The header that names a 2025-era session.
pub(crate) const SESSION_ID: &str = "mcp-session-id";

/// The `Accept` header: a client takes JSON and SSE alike.
pub(crate) const ACCEPT: &str = "application/json, text/event-stream";

/// The `tools/call` body for `tool`, with `inputResponses` and the echoed
/// `requestState` on a retry.
pub(crate) fn tools_call(id: u64, tool: &str, retry: Option<(&Value, &str)>) -> Vec<u8> {
    let mut params = Map::new();
    params.insert(
        "_meta".to_owned(),
        json!({
            "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            "io.modelcontextprotocol/clientInfo": {
                "name": "mcp-loadgen",
                "version": env!("CARGO_PKG_VERSION")
            }
        }),
    );
    params.insert("name".to_owned(), Value::from(tool));
    params.insert("arguments".to_owned(), Value::Object(Map::new()));
    if let Some((responses, state)) = retry {
        params.insert("inputResponses".to_owned(), responses.clone());
        params.insert("requestState".to_owned(), Value::from(state));
    }
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    message.to_string().into_bytes()
}

/// The `clientInfo` both eras send.
fn client_info() -> Value {
    json!({"name": "mcp-loadgen", "version": env!("CARGO_PKG_VERSION")})
}

/// The `initialize` request that opens a 2025-era session: no client
/// capabilities.
pub(crate) fn initialize(id: u64) -> Vec<u8> {
    let message = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": client_info()
        }
    });
    message.to_string().into_bytes()
}

/// The `notifications/initialized` a 2025-era client sends once
/// `initialize` is answered.
pub(crate) fn initialized() -> Vec<u8> {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        .to_string()
        .into_bytes()
}

/// The `tools/call` body a 2025-era client sends inside its session: the
/// same tool and arguments as [`tools_call`], and no `_meta`.
pub(crate) fn legacy_tools_call(id: u64, tool: &str) -> Vec<u8> {
    let message = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {}}
    });
    message.to_string().into_bytes()
}

/// A 2025-era `ping` (a session's cheapest request).
pub(crate) fn ping(id: u64) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
        .to_string()
        .into_bytes()
}

/// Why an answer does not count as a success.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The HTTP status was not 200.
    Status(u16),
    /// No JSON-RPC response to this request in the body.
    NoResponse,
    /// A JSON-RPC error, with its code.
    Error(i64),
    /// A result of another kind than expected, or without the fields the
    /// next round needs.
    Unexpected(&'static str),
    /// The connection failed, or the request timed out.
    Transport(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Status(status) => write!(f, "HTTP status {status}"),
            Self::NoResponse => f.write_str("no JSON-RPC response in the body"),
            Self::Error(code) => write!(f, "JSON-RPC error {code}"),
            Self::Unexpected(what) => write!(f, "unexpected result: {what}"),
            Self::Transport(why) => write!(f, "transport: {why}"),
        }
    }
}

/// The JSON-RPC response to request `id` in a body: the whole body when it
/// is JSON, or the `data:` of an SSE event otherwise (notifications before
/// it are skipped).
pub(crate) fn response_message(content_type: &str, body: &[u8], id: u64) -> Option<Value> {
    let is_sse = content_type
        .split(';')
        .next()
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("text/event-stream"));
    if !is_sse {
        let value: Value = serde_json::from_slice(body).ok()?;
        return is_response_to(&value, id).then_some(value);
    }
    let text = std::str::from_utf8(body).ok()?;
    sse_events(text)
        .filter_map(|data| serde_json::from_str::<Value>(&data).ok())
        .find(|value| is_response_to(value, id))
}

/// The `data` of each SSE event in `text` (multi-line data joined with
/// `\n`; events without data are skipped).
fn sse_events(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut lines = text.lines();
    std::iter::from_fn(move || {
        let mut data: Option<String> = None;
        loop {
            let Some(line) = lines.next() else {
                return data.map(Some).unwrap_or(None);
            };
            if line.is_empty() {
                if let Some(data) = data.take() {
                    return Some(data);
                }
                continue;
            }
            if let Some(value) = line.strip_prefix("data:") {
                let value = value.strip_prefix(' ').unwrap_or(value);
                match &mut data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => data = Some(value.to_owned()),
                }
            }
        }
    })
}

/// Whether `value` is the JSON-RPC response (result or error) to `id`.
fn is_response_to(value: &Value, id: u64) -> bool {
    value.get("id").and_then(Value::as_u64) == Some(id)
        && (value.get("result").is_some() || value.get("error").is_some())
}

/// The `result` of a response, or the failure it reports.
fn result_of(message: &Value) -> Result<&Map<String, Value>, Failure> {
    if let Some(error) = message.get("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        return Err(Failure::Error(code));
    }
    message
        .get("result")
        .and_then(Value::as_object)
        .ok_or(Failure::Unexpected("the result is not an object"))
}

/// Checks a completed `tools/call` result: `resultType` absent or
/// `complete`, and not a tool error.
pub(crate) fn expect_complete(message: &Value) -> Result<(), Failure> {
    let result = result_of(message)?;
    match result.get("resultType").and_then(Value::as_str) {
        None | Some("complete") => {}
        Some(_) => return Err(Failure::Unexpected("resultType is not complete")),
    }
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(Failure::Unexpected("isError is true"));
    }
    if !result.get("content").is_some_and(Value::is_array) {
        return Err(Failure::Unexpected("no content array"));
    }
    Ok(())
}

/// Checks a completed `tools/call` result in the 2025 shape: as
/// [`expect_complete`], and without `resultType`, which 2026-07-28 added.
pub(crate) fn expect_legacy_complete(message: &Value) -> Result<(), Failure> {
    expect_complete(message)?;
    if result_of(message)?.contains_key("resultType") {
        return Err(Failure::Unexpected("a 2025-era result carries resultType"));
    }
    Ok(())
}

/// Checks the `initialize` result: the revision asked for, agreed.
pub(crate) fn expect_initialize(message: &Value) -> Result<(), Failure> {
    let result = result_of(message)?;
    if result.get("protocolVersion").and_then(Value::as_str) != Some(LEGACY_PROTOCOL_VERSION) {
        return Err(Failure::Unexpected(
            "initialize did not agree on the revision asked for",
        ));
    }
    if !result.get("capabilities").is_some_and(Value::is_object) {
        return Err(Failure::Unexpected(
            "initialize result without capabilities",
        ));
    }
    Ok(())
}

/// Checks a `ping` result: an object, no error.
pub(crate) fn expect_pong(message: &Value) -> Result<(), Failure> {
    result_of(message).map(|_| ())
}

/// Checks an `input_required` result that asks under `key`, and returns
/// its `requestState` to echo.
pub(crate) fn expect_input_required(message: &Value, key: &str) -> Result<String, Failure> {
    let result = result_of(message)?;
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return Err(Failure::Unexpected("resultType is not input_required"));
    }
    if result
        .get("inputRequests")
        .and_then(|requests| requests.get(key))
        .is_none()
    {
        return Err(Failure::Unexpected("no input request under the key"));
    }
    result
        .get("requestState")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or(Failure::Unexpected("no requestState"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_carries_meta_and_the_round_trip_fields() {
        let answer = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        let body = tools_call(7, "t", Some((&answer, "STATE")));
        let value: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(value["id"], 7);
        assert_eq!(value["method"], "tools/call");
        let params = &value["params"];
        assert_eq!(params["name"], "t");
        assert_eq!(
            params["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert!(params["_meta"]["io.modelcontextprotocol/clientCapabilities"].is_object());
        assert!(params["_meta"]["io.modelcontextprotocol/clientInfo"].is_object());
        assert_eq!(params["requestState"], "STATE");
        assert_eq!(params["inputResponses"], answer);
        let first: Value = serde_json::from_slice(&tools_call(1, "t", None)).unwrap();
        assert!(first["params"].get("requestState").is_none());
    }

    #[test]
    fn session_messages_are_2025_shaped() {
        let init: Value = serde_json::from_slice(&initialize(1)).unwrap();
        assert_eq!(init["method"], "initialize");
        assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
        assert_eq!(init["params"]["capabilities"], json!({}));
        assert_eq!(init["params"]["clientInfo"]["name"], "mcp-loadgen");
        let note: Value = serde_json::from_slice(&initialized()).unwrap();
        assert_eq!(note["method"], "notifications/initialized");
        assert!(note.get("id").is_none());
        let call: Value = serde_json::from_slice(&legacy_tools_call(9, "t")).unwrap();
        assert_eq!(call["id"], 9);
        assert_eq!(call["params"], json!({"name": "t", "arguments": {}}));
        let modern: Value = serde_json::from_slice(&tools_call(9, "t", None)).unwrap();
        assert_eq!(call["params"]["arguments"], modern["params"]["arguments"]);
        let ping: Value = serde_json::from_slice(&ping(2)).unwrap();
        assert_eq!(ping["method"], "ping");
    }

    #[test]
    fn json_and_sse_answers_are_read_alike() {
        let json_body = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#;
        let from_json = response_message("application/json", json_body, 3).unwrap();
        let sse_body = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n\
                        id: 0\nretry: 3000\ndata:\n\n\
                        event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[]}}\n\n";
        let from_sse =
            response_message("text/event-stream; charset=utf-8", sse_body.as_bytes(), 3).unwrap();
        assert_eq!(from_json, from_sse);
        assert!(response_message("application/json", json_body, 4).is_none());
        assert!(response_message("text/event-stream", b"data: {\"id\":4}\n\n", 4).is_none());
    }

    #[test]
    fn sse_data_may_span_lines_and_end_without_a_blank_line() {
        let events: Vec<String> = sse_events("data: a\ndata: b\n\n: comment\ndata:c").collect();
        assert_eq!(events, ["a\nb", "c"]);
    }

    #[test]
    fn results_are_checked() {
        let complete = json!({"id": 1, "result": {"resultType": "complete", "content": []}});
        assert_eq!(expect_complete(&complete), Ok(()));
        let legacy = json!({"id": 1, "result": {"content": []}});
        assert_eq!(expect_complete(&legacy), Ok(()));
        let tool_error = json!({"id": 1, "result": {"content": [], "isError": true}});
        assert!(expect_complete(&tool_error).is_err());
        let error = json!({"id": 1, "error": {"code": -32602, "message": "no"}});
        assert_eq!(expect_complete(&error), Err(Failure::Error(-32602)));

        let ask = json!({"id": 1, "result": {
            "resultType": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create"}},
            "requestState": "S"
        }});
        assert_eq!(expect_input_required(&ask, "confirm"), Ok("S".to_owned()));
        assert!(expect_input_required(&ask, "other").is_err());
        assert!(expect_input_required(&complete, "confirm").is_err());
        assert!(expect_complete(&ask).is_err());

        assert_eq!(expect_legacy_complete(&legacy), Ok(()));
        assert!(expect_legacy_complete(&complete).is_err());
        assert!(expect_legacy_complete(&tool_error).is_err());
        assert_eq!(expect_legacy_complete(&error), Err(Failure::Error(-32602)));
        let agreed = json!({"id": 0, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {}
        }});
        assert_eq!(expect_initialize(&agreed), Ok(()));
        let other =
            json!({"id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {}}});
        assert!(expect_initialize(&other).is_err());
        assert_eq!(expect_pong(&json!({"id": 2, "result": {}})), Ok(()));
        assert!(expect_pong(&error).is_err());
    }
}
