//! The requests of the 2025 era that 2026-07-28 has no place for:
//! `initialize` (which opens a session), the `_meta` a 2025-era request is
//! served with, and `ping`, `logging/setLevel`, `resources/subscribe` and
//! `resources/unsubscribe`.

use serde_json::Value;

use super::{LegacyClients, Session};
use crate::budget::{Memory, json_cost, json_text_len, string_cost};
use crate::receive_context::ReceiveContext;
use crate::schema::{
    Implementation, InitializeRequestParams, InitializeResult, JsonObject, LoggingLevel, McpError,
    ProgressToken, RequestMeta, ServerCapabilities, meta_keys, negotiate_legacy_version,
};

/// What `initialize` answers with, besides the negotiated version: the
/// server's self-description, its instructions, and the capabilities it
/// offers a client with a session (`true`) or without one.
pub(crate) struct Introduction<'a, F: FnOnce(bool) -> ServerCapabilities> {
    pub(crate) info: &'a Implementation,
    pub(crate) instructions: Option<&'a String>,
    pub(crate) capabilities: F,
    /// What a session may keep, and the budget it is charged to.
    pub(crate) memory: &'a Memory,
}

/// `initialize`: the version negotiated, the session opened (unless legacy
/// clients are served statelessly or refused), and the result. Dispatch
/// calls it, not the method table: it is the one request that opens
/// something the transport must keep. `current` is the session the
/// message came in, if any (a second `initialize` is refused).
pub(crate) fn initialize<F: FnOnce(bool) -> ServerCapabilities>(
    legacy: LegacyClients,
    params: Option<Value>,
    current: Option<&Session>,
    server: Introduction<'_, F>,
) -> Result<(String, Option<Session>), McpError> {
    let kept = match legacy {
        LegacyClients::Sessions => Some(client_data(params.as_ref(), server.memory)?),
        _ => None,
    };
    let params: InitializeRequestParams = serde_json::from_value(params.unwrap_or(Value::Null))
        .map_err(|e| McpError::invalid_params(format!("invalid initialize params: {e}")))?;
    if legacy == LegacyClients::Refused {
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
    if current.is_some() {
        return Err(McpError::InvalidRequest {
            detail: "this session is already initialized".to_owned(),
        });
    }
    let version = negotiate_legacy_version(&params.protocol_version);
    let with_session = legacy == LegacyClients::Sessions;
    let result = InitializeResult {
        protocol_version: version.to_owned(),
        capabilities: (server.capabilities)(with_session),
        server_info: server.info.clone(),
        instructions: server.instructions.cloned(),
    };
    let json = serde_json::to_string(&result)
        .map_err(|e| McpError::internal(format!("could not serialise the result: {e}")))?;
    let session = match kept {
        Some(cost) if with_session => {
            let held = server.memory.hold(cost, "a 2025-era session")?;
            Some(Session::open(
                version,
                params.capabilities,
                Some(params.client_info),
                held,
            ))
        }
        _ => None,
    };
    Ok((json, session))
}

/// What a session keeps of `initialize` (`clientInfo` and `capabilities`),
/// checked against the limit on its JSON text: the memory it costs, or
/// `-32602` naming the limit.
fn client_data(params: Option<&Value>, memory: &Memory) -> Result<usize, McpError> {
    /// What a session costs besides its client's data: its id, its state,
    /// its channels and its entry in the transport's table.
    const SESSION: usize = 2048;
    let kept = ["clientInfo", "capabilities"].map(|key| params.and_then(|p| p.get(key)));
    let text: usize = kept.iter().flatten().map(|v| json_text_len(v)).sum();
    let max = memory.limits.max_client_data_bytes;
    if text > max {
        return Err(McpError::invalid_params(format!(
            "initialize: clientInfo and capabilities take {text} bytes of JSON; a session \
             keeps at most {max}"
        )));
    }
    Ok(SESSION + kept.iter().flatten().map(|v| json_cost(v)).sum::<usize>())
}

/// The `_meta` a 2025-era request is served with: its session's (version,
/// capabilities, log level), or for a request without a session the
/// version its `MCP-Protocol-Version` header names and no capabilities;
/// either way with the request's own progress token.
pub(crate) fn request_meta(
    params: &JsonObject,
    receive: &ReceiveContext,
    session: Option<&Session>,
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
    match session {
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
pub(crate) fn ping() -> Result<String, McpError> {
    Ok(EMPTY.to_owned())
}

/// The empty result.
const EMPTY: &str = "{}";

/// `logging/setLevel`: the session's log level, from now on.
pub(crate) fn set_level(
    session: Option<&Session>,
    params: &JsonObject,
) -> Result<String, McpError> {
    let session = session_of(session)?;
    let level = match params.get("level") {
        Some(level) => read::<LoggingLevel>(level).ok_or_else(|| {
            McpError::invalid_params(format!(
                "params.level must be one of debug, info, notice, warning, error, \
                     critical, alert, emergency; got {level}"
            ))
        })?,
        None => return Err(McpError::invalid_params("params.level is required")),
    };
    session.set_log_level(level);
    Ok(EMPTY.to_owned())
}

/// `resources/subscribe`: updates of the URI go to the session's stream.
/// The URI's length and the session's count are bounded (`memory`), and
/// what it keeps is charged to the budget.
pub(crate) fn subscribe(
    session: Option<&Session>,
    params: &JsonObject,
    memory: &Memory,
) -> Result<String, McpError> {
    let session = session_of(session)?;
    let uri = uri_of(params)?;
    memory.check_uri(&uri)?;
    let held = memory.hold(string_cost(&uri), "a resource subscription")?;
    let max = memory.limits.max_subscriptions;
    if !session.subscribe(uri, held, max) {
        return Err(McpError::invalid_params(format!(
            "this session already holds {max} subscriptions; unsubscribe from one first"
        )));
    }
    Ok(EMPTY.to_owned())
}

/// `resources/unsubscribe`.
pub(crate) fn unsubscribe(
    session: Option<&Session>,
    params: &JsonObject,
) -> Result<String, McpError> {
    let session = session_of(session)?;
    session.unsubscribe(&uri_of(params)?);
    Ok(EMPTY.to_owned())
}

fn session_of(session: Option<&Session>) -> Result<&Session, McpError> {
    // The table routes these methods only to requests in a session.
    session.ok_or_else(|| McpError::internal("a session method was routed without a session"))
}

fn uri_of(params: &JsonObject) -> Result<String, McpError> {
    match params.get("uri") {
        Some(Value::String(uri)) => Ok(uri.clone()),
        Some(_) => Err(McpError::invalid_params("params.uri must be a string")),
        None => Err(McpError::invalid_params("params.uri is required")),
    }
}
