//! The 2025 era beside 2026-07-28: how the server treats 2025-era clients
//! ([`LegacyClients`], [`Bridge`]), `initialize`, the methods 2026-07-28
//! removed (`ping`, `logging/setLevel`, `resources/subscribe`,
//! `resources/unsubscribe`), and the 2025 shape of results.
//!
//! Which era a request belongs to is decided in one place, `dispatch.rs`;
//! how an input-required result reaches a 2025-era client is `bridge.rs`.

use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;

use super::methods::{self, Call};
use super::registry::Registry;
use super::{ReceiveContext, Session};
use crate::BoxFuture;
use crate::schema::{
    InitializeRequestParams, InitializeResult, JsonKey, JsonObject, LoggingLevel, McpError,
    ProgressToken, RequestMeta, meta_keys, negotiate_legacy_version,
};

/// How a server treats 2025-era clients (those that open with `initialize`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LegacyClients {
    /// Served in sessions: `initialize` opens one (an `MCP-Session-Id` on
    /// HTTP; the connection on stdio), which keeps the client's
    /// capabilities and log level, carries resource subscriptions and
    /// change notifications, and lets the server ask the client for input
    /// (the [`Bridge`]). The default.
    #[default]
    Sessions,
    /// Served one request at a time, with no session: `initialize` is
    /// answered but opens nothing, so the server cannot ask the client
    /// anything (no bridge), and `logging/setLevel` and
    /// `resources/subscribe` are not offered.
    Stateless,
    /// Refused: `initialize` gets `-32022` naming the versions this server
    /// supports (2026-07-28 only).
    Refused,
}

/// How an input-required result reaches a 2025-era client, which cannot
/// read one: the server sends each input request to the client itself
/// (`elicitation/create`, `sampling/createMessage`, `roots/list`) on the
/// session, collects the answers, and enters the handler again with them
/// and the state it returned, verified as on the 2026-07-28 path.
///
/// When the bridge cannot go on (the client did not declare what is asked,
/// a bound is hit, a round times out, the client leaves or cancels), a tool
/// call ends as a result with `isError: true` and a prompt or resource read
/// with a `-32603` error, each saying why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bridge {
    pub(crate) enabled: bool,
    pub(crate) max_rounds: usize,
    pub(crate) round_timeout: Duration,
}

/// The most rounds the bridge runs for one request by default.
pub const DEFAULT_BRIDGE_ROUNDS: usize = 8;

/// How long the bridge waits for the client's answers to one round by default.
pub const DEFAULT_BRIDGE_ROUND_TIMEOUT: Duration = Duration::from_secs(600);

impl Default for Bridge {
    fn default() -> Self {
        Self {
            enabled: true,
            max_rounds: DEFAULT_BRIDGE_ROUNDS,
            round_timeout: DEFAULT_BRIDGE_ROUND_TIMEOUT,
        }
    }
}

impl Bridge {
    /// No bridge: a handler that asks a 2025-era client for input ends as
    /// when the bridge cannot go on.
    pub fn off() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }

    /// The most rounds for one request (default [`DEFAULT_BRIDGE_ROUNDS`], at least 1).
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// How long one round may wait for the client's answers (default
    /// [`DEFAULT_BRIDGE_ROUND_TIMEOUT`]).
    pub fn round_timeout(mut self, timeout: Duration) -> Self {
        self.round_timeout = timeout;
        self
    }
}

/// `initialize`: the version negotiated, the session opened (unless legacy
/// clients are served statelessly or refused), and the result. Dispatch
/// calls it, not the method table: it is the one request that opens
/// something the transport must keep.
pub(crate) fn initialize(
    registry: &Registry,
    params: Option<Value>,
    receive: &ReceiveContext,
) -> Result<(String, Option<Session>), McpError> {
    let params: InitializeRequestParams = serde_json::from_value(params.unwrap_or(Value::Null))
        .map_err(|e| McpError::invalid_params(format!("invalid initialize params: {e}")))?;
    if registry.legacy == LegacyClients::Refused {
        // The data of -32022, with a message a person can act on: a 2025-era
        // client has no other way to learn what this server speaks.
        let supported = crate::schema::SUPPORTED_PROTOCOL_VERSIONS;
        return Err(McpError::Other(crate::schema::ErrorObject {
            code: crate::schema::codes::UNSUPPORTED_PROTOCOL_VERSION,
            message: format!(
                "Unsupported protocol version: this server serves MCP {} only, not 2025-era \
                 clients ({} was asked); use a client of a supported version",
                supported.join(", "),
                params.protocol_version
            ),
            data: Some(serde_json::json!({
                "supported": supported,
                "requested": params.protocol_version,
            })),
        }));
    }
    if receive.session.is_some() {
        return Err(McpError::InvalidRequest {
            detail: "this session is already initialized".to_owned(),
        });
    }
    let version = negotiate_legacy_version(&params.protocol_version);
    let with_session = registry.legacy == LegacyClients::Sessions;
    let result = InitializeResult {
        protocol_version: version.to_owned(),
        capabilities: methods::legacy_capabilities(registry, with_session),
        server_info: registry.info.clone(),
        instructions: registry.instructions.clone(),
    };
    let json = super::finish::serialise(&result)?;
    let session =
        with_session.then(|| Session::open(version, params.capabilities, Some(params.client_info)));
    Ok((json, session))
}

/// The `_meta` a 2025-era request is served with: its session's (version,
/// capabilities, log level), or for a request without a session the
/// version its `MCP-Protocol-Version` header names and no capabilities;
/// either way with the request's own progress token.
pub(crate) fn request_meta(
    params: &JsonObject,
    receive: &ReceiveContext,
) -> Result<RequestMeta, McpError> {
    let progress_token = match params
        .get("_meta")
        .and_then(|m| m.get(meta_keys::PROGRESS_TOKEN))
    {
        None => None,
        Some(token) => Some(read::<ProgressToken>(token).ok_or_else(|| {
            McpError::invalid_params("params._meta.progressToken must be a string or an integer")
        })?),
    };
    let header = receive
        .headers
        .as_ref()
        .and_then(|h| h.protocol_version.as_deref());
    match &receive.session {
        Some(session) => {
            if let Some(header) = header
                && header != session.protocol_version()
            {
                return Err(McpError::HeaderMismatch {
                    detail: format!(
                        "MCP-Protocol-Version is {header:?} but this session speaks {:?}",
                        session.protocol_version()
                    ),
                });
            }
            Ok(session.request_meta(progress_token))
        }
        None => {
            // A missing header means the oldest version (2025-03-26), as the
            // 2025-06-18 transport allows.
            let version = header.map_or("2025-03-26", negotiate_legacy_version);
            let mut meta = RequestMeta::new(Default::default());
            meta.protocol_version = version.to_owned();
            meta.progress_token = progress_token;
            meta.log_level = Some(LoggingLevel::Debug);
            Ok(meta)
        }
    }
}

/// `value` read as a `T`, if it is one.
fn read<'a, T: serde::Deserialize<'a>>(value: &'a Value) -> Option<T> {
    T::deserialize(value).ok()
}

/// `ping`: an empty result.
pub(crate) fn ping(_: &Registry, _: Call) -> BoxFuture<'_, Result<String, McpError>> {
    Box::pin(async { Ok("{}".to_owned()) })
}

/// `logging/setLevel`: the session's log level, from now on.
pub(crate) fn set_level(_: &Registry, call: Call) -> BoxFuture<'_, Result<String, McpError>> {
    Box::pin(async move {
        let session = session_of(&call)?;
        let level = match call.params.get("level") {
            Some(level) => read::<LoggingLevel>(level).ok_or_else(|| {
                McpError::invalid_params(format!(
                    "params.level must be one of debug, info, notice, warning, error, \
                     critical, alert, emergency; got {level}"
                ))
            })?,
            None => return Err(McpError::invalid_params("params.level is required")),
        };
        session.set_log_level(level);
        Ok("{}".to_owned())
    })
}

/// `resources/subscribe`: updates of the URI go to the session's stream.
pub(crate) fn subscribe(_: &Registry, call: Call) -> BoxFuture<'_, Result<String, McpError>> {
    Box::pin(async move {
        let session = session_of(&call)?;
        let uri = uri_of(&call)?;
        if !session.subscribe(uri) {
            return Err(McpError::invalid_params(format!(
                "this session already holds {} subscriptions; unsubscribe from one first",
                super::session::MAX_SUBSCRIPTIONS
            )));
        }
        Ok("{}".to_owned())
    })
}

/// `resources/unsubscribe`.
pub(crate) fn unsubscribe(_: &Registry, call: Call) -> BoxFuture<'_, Result<String, McpError>> {
    Box::pin(async move {
        let session = session_of(&call)?;
        session.unsubscribe(&uri_of(&call)?);
        Ok("{}".to_owned())
    })
}

fn session_of(call: &Call) -> Result<&Session, McpError> {
    // The table routes these methods only to requests in a session.
    call.data
        .receive
        .session
        .as_ref()
        .ok_or_else(|| McpError::internal("a session method was routed without a session"))
}

fn uri_of(call: &Call) -> Result<String, McpError> {
    match call.params.get("uri") {
        Some(Value::String(uri)) => Ok(uri.clone()),
        Some(_) => Err(McpError::invalid_params("params.uri must be a string")),
        None => Err(McpError::invalid_params("params.uri is required")),
    }
}

/// A result in its 2025 shape: without `resultType` and the caching fields
/// (`ttlMs`, `cacheScope`) that 2026-07-28 added, and without
/// `serverInfo` in `_meta` (a 2025-era client had it from `initialize`).
///
/// Only the top-level members are read, each value kept as the text it is:
/// a result is scanned and copied once, not rebuilt as a tree.
pub(crate) fn to_2025_shape(json: String) -> Result<String, McpError> {
    let Ok(Members(members)) = serde_json::from_str::<Members<'_>>(&json) else {
        // Not an object (an extension's own result): nothing to remove.
        return Ok(json);
    };
    let mut shaped = String::with_capacity(json.len());
    shaped.push('{');
    for (key, value) in &members {
        let meta;
        let value = match &*key.0 {
            "resultType" | "ttlMs" | "cacheScope" => continue,
            "_meta" => match without_server_info(value.get()) {
                Some(without) if without == "{}" => continue,
                Some(without) => {
                    meta = without;
                    meta.as_str()
                }
                None => value.get(),
            },
            _ => value.get(),
        };
        if shaped.len() > 1 {
            shaped.push(',');
        }
        push_key(&mut shaped, key)?;
        shaped.push(':');
        shaped.push_str(value);
    }
    shaped.push('}');
    Ok(shaped)
}

/// A `_meta` object's text without `serverInfo`; `None` when it is not an
/// object (then it stays as it is).
fn without_server_info(meta: &str) -> Option<String> {
    let Members(members) = serde_json::from_str(meta).ok()?;
    let mut shaped = String::with_capacity(meta.len());
    shaped.push('{');
    for (key, value) in members
        .iter()
        .filter(|(key, _)| key.0 != meta_keys::SERVER_INFO)
    {
        if shaped.len() > 1 {
            shaped.push(',');
        }
        push_key(&mut shaped, key).ok()?;
        shaped.push(':');
        shaped.push_str(value.get());
    }
    shaped.push('}');
    Some(shaped)
}

/// Writes an object key: as it was in the text when it had no escapes,
/// escaped again otherwise.
fn push_key(out: &mut String, key: &JsonKey<'_>) -> Result<(), McpError> {
    match &key.0 {
        std::borrow::Cow::Borrowed(plain) => {
            out.push('"');
            out.push_str(plain);
            out.push('"');
        }
        std::borrow::Cow::Owned(decoded) => {
            let quoted = serde_json::to_string(decoded)
                .map_err(|e| McpError::internal(format!("could not write a key: {e}")))?;
            out.push_str(&quoted);
        }
    }
    Ok(())
}

/// The members of a JSON object in order, each value as its raw text.
struct Members<'a>(Vec<(JsonKey<'a>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(MembersVisitor)
    }
}

struct MembersVisitor;

impl<'de> serde::de::Visitor<'de> for MembersVisitor {
    type Value = Members<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<JsonKey<'de>>()? {
            members.push((key, map.next_value::<&'de RawValue>()?));
        }
        Ok(Members(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_lose_what_2026_07_28_added() {
        let json = r#"{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}"#;
        assert_eq!(to_2025_shape(json.to_owned()).unwrap(), r#"{"tools":[]}"#);
        let kept = r#"{"_meta":{"mine":1,"io.modelcontextprotocol/serverInfo":{}},"content":[]}"#;
        assert_eq!(
            to_2025_shape(kept.to_owned()).unwrap(),
            r#"{"_meta":{"mine":1},"content":[]}"#
        );
    }

    #[test]
    fn shaping_keeps_every_other_member_as_written() {
        let json = r#"{"content":[{"type":"text","text":"a\"b"}],"resultType":"complete","isError":false,"k\u00e9y":1,"_meta":{"x":{"y":[1,2]}}}"#;
        let shaped = to_2025_shape(json.to_owned()).unwrap();
        assert_eq!(
            shaped,
            "{\"content\":[{\"type\":\"text\",\"text\":\"a\\\"b\"}],\"isError\":false,\"k\u{e9}y\":1,\"_meta\":{\"x\":{\"y\":[1,2]}}}"
        );
        let reparsed: serde_json::Value = serde_json::from_str(&shaped).unwrap();
        assert_eq!(reparsed["k\u{e9}y"], 1);
        assert_eq!(to_2025_shape("[1]".to_owned()).unwrap(), "[1]");
        assert_eq!(to_2025_shape("{}".to_owned()).unwrap(), "{}");
    }

    #[test]
    fn bridge_bounds_are_at_least_one_round() {
        let bridge = Bridge::default().max_rounds(0);
        assert_eq!(bridge.max_rounds, 1);
        assert!(!Bridge::off().enabled);
    }
}
