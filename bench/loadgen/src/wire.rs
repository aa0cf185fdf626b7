//! What goes on the wire: the `tools/call` bodies and headers a 2026-07-28
//! client sends, the messages of a 2025-era session (`initialize`,
//! `notifications/initialized`, a `tools/call` without `_meta`, `ping`),
//! and the reading of the answers, as JSON or as an SSE stream whose
//! `data:` lines carry the JSON-RPC messages.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
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
            "io.modelcontextprotocol/clientInfo": client_info()
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

/// An id no real request uses, written where a template's id goes.
const ID_HOLE: u64 = 9_081_726_354_453_627_189;

/// A `requestState` no server sends, written where a template's state goes.
const STATE_HOLE: &str = "@@requestState@@";

/// A request body made once, with its JSON-RPC id (and, for a retry, its
/// `requestState`) filled in for each request: the bytes are those the
/// function it was made from writes, without building a JSON tree for
/// every request.
#[derive(Debug, Clone)]
pub(crate) struct Template {
    /// Before the id.
    head: Vec<u8>,
    /// Between the id and the state; after the id if there is no state.
    middle: Vec<u8>,
    /// After the state, if the template has one.
    tail: Option<Vec<u8>>,
}

impl Template {
    /// The template of what `make` writes for id [`ID_HOLE`] and state
    /// [`STATE_HOLE`]; each must appear once.
    pub(crate) fn new(make: impl FnOnce(u64, &str) -> Vec<u8>) -> Result<Self, String> {
        let body = make(ID_HOLE, STATE_HOLE);
        let id = ID_HOLE.to_string();
        let state = serde_json::to_string(STATE_HOLE).unwrap_or_default();
        let once = |part: &[u8], hole: &str| {
            let at = find(part, hole.as_bytes());
            match at {
                Some(at) if find(&part[at + hole.len()..], hole.as_bytes()).is_none() => {
                    Ok(Some(at))
                }
                Some(_) => Err(format!("the body names {hole} twice")),
                None => Ok(None),
            }
        };
        let at = once(&body, &id)?.ok_or("the body has no id")?;
        let (head, rest) = (body[..at].to_vec(), &body[at + id.len()..]);
        Ok(match once(rest, &state)? {
            Some(at) => Self {
                head,
                middle: rest[..at].to_vec(),
                tail: Some(rest[at + state.len()..].to_vec()),
            },
            None => Self {
                head,
                middle: rest.to_vec(),
                tail: None,
            },
        })
    }

    /// Writes the body for request `id` (and `state`, for a template with
    /// one) into `out`, after clearing it.
    pub(crate) fn fill(&self, out: &mut Vec<u8>, id: u64, state: &str) {
        use std::io::Write as _;
        out.clear();
        out.extend_from_slice(&self.head);
        // Writing into a vector cannot fail.
        let _ = write!(out, "{id}");
        out.extend_from_slice(&self.middle);
        if let Some(tail) = &self.tail {
            let _ = serde_json::to_writer(&mut *out, state);
            out.extend_from_slice(tail);
        }
    }
}

/// Where `needle` first occurs in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
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

/// A JSON-RPC response as the load generator reads it: only the members
/// it checks, borrowed from the body where they can be.
#[derive(Debug, Deserialize)]
pub(crate) struct Reply<'a> {
    /// The id, as written.
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    /// The result, if it is one.
    #[serde(borrow, default)]
    result: Option<ReplyResult<'a>>,
    /// The error, if it is one.
    #[serde(default)]
    error: Option<ReplyError>,
}

/// The members of a result that the checks below read.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplyResult<'a> {
    #[serde(borrow, default)]
    result_type: Option<Cow<'a, str>>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input_requests: Option<&'a RawValue>,
    #[serde(borrow, default)]
    request_state: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    protocol_version: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    capabilities: Option<&'a RawValue>,
}

/// A JSON-RPC error's code.
#[derive(Debug, Deserialize)]
struct ReplyError {
    #[serde(default)]
    code: Option<i64>,
}

/// Whether a raw JSON value is an array (`[`) or an object (`{`).
fn starts_with(raw: Option<&RawValue>, bracket: char) -> bool {
    raw.is_some_and(|raw| raw.get().trim_start().starts_with(bracket))
}

impl Reply<'_> {
    /// Whether this is the response (result or error) to `id`: a number
    /// equal to it (a string id is another id).
    fn answers(&self, id: u64) -> bool {
        self.id.and_then(|raw| raw.get().parse::<u64>().ok()) == Some(id)
            && (self.result.is_some() || self.error.is_some())
    }
}

/// Finds the JSON-RPC response to request `id` in a body (the whole body
/// when it is JSON, or the `data:` of an SSE event otherwise; messages
/// before it are skipped) and checks it with `check`.
pub(crate) fn read_response<T>(
    content_type: &str,
    body: &[u8],
    id: u64,
    check: impl FnOnce(&Reply<'_>) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let is_sse = content_type
        .split(';')
        .next()
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("text/event-stream"));
    if !is_sse {
        return match serde_json::from_slice::<Reply<'_>>(body) {
            Ok(reply) if reply.answers(id) => check(&reply),
            _ => Err(Failure::NoResponse),
        };
    }
    let text = std::str::from_utf8(body).map_err(|_| Failure::NoResponse)?;
    for data in sse_events(text) {
        if let Ok(reply) = serde_json::from_str::<Reply<'_>>(&data)
            && reply.answers(id)
        {
            return check(&reply);
        }
    }
    Err(Failure::NoResponse)
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

/// The `result` of a response, or the failure it reports.
fn result_of<'r, 'a>(reply: &'r Reply<'a>) -> Result<&'r ReplyResult<'a>, Failure> {
    if let Some(error) = &reply.error {
        return Err(Failure::Error(error.code.unwrap_or(0)));
    }
    reply
        .result
        .as_ref()
        .ok_or(Failure::Unexpected("no result"))
}

/// Checks a completed `tools/call` result: `resultType` absent or
/// `complete`, and not a tool error.
pub(crate) fn expect_complete(reply: &Reply<'_>) -> Result<(), Failure> {
    let result = result_of(reply)?;
    match result.result_type.as_deref() {
        None | Some("complete") => {}
        Some(_) => return Err(Failure::Unexpected("resultType is not complete")),
    }
    if result.is_error == Some(true) {
        return Err(Failure::Unexpected("isError is true"));
    }
    if !starts_with(result.content, '[') {
        return Err(Failure::Unexpected("no content array"));
    }
    Ok(())
}

/// Checks a completed `tools/call` result in the 2025 shape: as
/// [`expect_complete`], and without `resultType`, which 2026-07-28 added.
pub(crate) fn expect_legacy_complete(reply: &Reply<'_>) -> Result<(), Failure> {
    expect_complete(reply)?;
    if result_of(reply)?.result_type.is_some() {
        return Err(Failure::Unexpected("a 2025-era result carries resultType"));
    }
    Ok(())
}

/// Checks the `initialize` result: the revision asked for, agreed.
pub(crate) fn expect_initialize(reply: &Reply<'_>) -> Result<(), Failure> {
    let result = result_of(reply)?;
    if result.protocol_version.as_deref() != Some(LEGACY_PROTOCOL_VERSION) {
        return Err(Failure::Unexpected(
            "initialize did not agree on the revision asked for",
        ));
    }
    if !starts_with(result.capabilities, '{') {
        return Err(Failure::Unexpected(
            "initialize result without capabilities",
        ));
    }
    Ok(())
}

/// Checks a `ping` result: a result, no error.
pub(crate) fn expect_pong(reply: &Reply<'_>) -> Result<(), Failure> {
    result_of(reply).map(|_| ())
}

/// Checks an `input_required` result that asks under `key`, and returns
/// its `requestState` to echo.
pub(crate) fn expect_input_required(reply: &Reply<'_>, key: &str) -> Result<String, Failure> {
    let result = result_of(reply)?;
    if result.result_type.as_deref() != Some("input_required") {
        return Err(Failure::Unexpected("resultType is not input_required"));
    }
    let asks = result
        .input_requests
        .and_then(|raw| serde_json::from_str::<BTreeMap<Cow<'_, str>, IgnoredAny>>(raw.get()).ok())
        .is_some_and(|requests| requests.contains_key(key));
    if !asks {
        return Err(Failure::Unexpected("no input request under the key"));
    }
    result
        .request_state
        .as_deref()
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

    /// What `check` makes of `value`, sent as a JSON body answering id 1.
    fn checked<T>(
        value: Value,
        check: impl FnOnce(&Reply<'_>) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        read_response("application/json", value.to_string().as_bytes(), 1, check)
    }

    #[test]
    fn json_and_sse_answers_are_read_alike() {
        let json_body = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#;
        assert_eq!(
            read_response("application/json", json_body, 3, expect_complete),
            Ok(())
        );
        let sse_body = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n\
                        id: 0\nretry: 3000\ndata:\n\n\
                        event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"isError\":true,\"content\":[]}}\n\n";
        let from_sse = read_response(
            "text/event-stream; charset=utf-8",
            sse_body.as_bytes(),
            3,
            expect_complete,
        );
        assert_eq!(from_sse, Err(Failure::Unexpected("isError is true")));
        let other = read_response("application/json", json_body, 4, expect_pong);
        assert_eq!(other, Err(Failure::NoResponse));
        let string_id = br#"{"jsonrpc":"2.0","id":"3","result":{}}"#;
        let string_id = read_response("application/json", string_id, 3, expect_pong);
        assert_eq!(string_id, Err(Failure::NoResponse));
        let no_result = read_response("text/event-stream", b"data: {\"id\":4}\n\n", 4, expect_pong);
        assert_eq!(no_result, Err(Failure::NoResponse));
    }

    #[test]
    fn a_template_writes_what_its_function_writes() {
        let answer = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
        let call = Template::new(|id, _| tools_call(id, "t", None)).unwrap();
        let retry = Template::new(|id, state| tools_call(id, "t", Some((&answer, state)))).unwrap();
        let mut out = Vec::new();
        for id in [0, 7, (3 << 32) + 12, u64::MAX] {
            call.fill(&mut out, id, "ignored");
            assert_eq!(out, tools_call(id, "t", None));
            for state in ["S", "a\"quote\\and\u{1}control", ""] {
                retry.fill(&mut out, id, state);
                assert_eq!(out, tools_call(id, "t", Some((&answer, state))));
            }
        }
        let legacy = Template::new(|id, _| legacy_tools_call(id, "t")).unwrap();
        legacy.fill(&mut out, 9, "");
        assert_eq!(out, legacy_tools_call(9, "t"));
        assert!(Template::new(|_, _| b"{}".to_vec()).is_err());
        assert!(Template::new(|id, _| format!("[{id},{id}]").into_bytes()).is_err());
    }

    #[test]
    fn sse_data_may_span_lines_and_end_without_a_blank_line() {
        let events: Vec<String> = sse_events("data: a\ndata: b\n\n: comment\ndata:c").collect();
        assert_eq!(events, ["a\nb", "c"]);
    }

    #[test]
    fn results_are_checked() {
        let complete = json!({"id": 1, "result": {"resultType": "complete", "content": []}});
        assert_eq!(checked(complete.clone(), expect_complete), Ok(()));
        let legacy = json!({"id": 1, "result": {"content": []}});
        assert_eq!(checked(legacy.clone(), expect_complete), Ok(()));
        let no_content = json!({"id": 1, "result": {"content": {}}});
        assert!(checked(no_content, expect_complete).is_err());
        let tool_error = json!({"id": 1, "result": {"content": [], "isError": true}});
        assert!(checked(tool_error.clone(), expect_complete).is_err());
        let error = json!({"id": 1, "error": {"code": -32602, "message": "no"}});
        assert_eq!(
            checked(error.clone(), expect_complete),
            Err(Failure::Error(-32602))
        );

        let ask = json!({"id": 1, "result": {
            "resultType": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create"}},
            "requestState": "S\"1"
        }});
        let asks = |key: &'static str| move |reply: &Reply<'_>| expect_input_required(reply, key);
        assert_eq!(checked(ask.clone(), asks("confirm")), Ok("S\"1".to_owned()));
        assert!(checked(ask.clone(), asks("other")).is_err());
        assert!(checked(complete.clone(), asks("confirm")).is_err());
        assert!(checked(ask, expect_complete).is_err());

        assert_eq!(checked(legacy, expect_legacy_complete), Ok(()));
        assert!(checked(complete, expect_legacy_complete).is_err());
        assert!(checked(tool_error, expect_legacy_complete).is_err());
        assert_eq!(
            checked(error.clone(), expect_legacy_complete),
            Err(Failure::Error(-32602))
        );
        let agreed = json!({"id": 1, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {}
        }});
        assert_eq!(checked(agreed, expect_initialize), Ok(()));
        let other =
            json!({"id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {}}});
        assert!(checked(other, expect_initialize).is_err());
        assert_eq!(checked(json!({"id": 1, "result": {}}), expect_pong), Ok(()));
        assert!(checked(error, expect_pong).is_err());
    }
}
