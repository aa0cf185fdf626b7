//! Which protocol era the client speaks with a server, and how it finds
//! out: `server/discover` first (2026-07-28), `initialize` for a server
//! that does not know it (the 2025 era), as the spec's era detection says.

use std::time::Duration;

use serde_json::Value;

use super::{Client, ClientError};
use crate::schema::{
    DiscoverResult, Implementation, InitializeResult, JsonObject, LATEST_PROTOCOL_VERSION,
    LEGACY_PROTOCOL_VERSIONS, ServerCapabilities, codes, meta_keys, notification_methods,
    request_methods,
};

/// A protocol era: how requests are framed and whether there is a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// MCP 2026-07-28: stateless requests, each with its own `_meta`;
    /// questions to the user come back as `input_required` results.
    Modern,
    /// MCP 2025-11-25, 2025-06-18 or 2025-03-26: `initialize` opens a
    /// session, and the server asks the client with requests of its own.
    Legacy,
}

/// What the client learned about the server when it connected.
#[derive(Debug, Clone)]
pub(super) struct Negotiated {
    pub(super) era: Era,
    pub(super) protocol_version: String,
    pub(super) capabilities: ServerCapabilities,
    pub(super) server_info: Option<Implementation>,
    pub(super) instructions: Option<String>,
}

impl Negotiated {
    /// Before anything is known: the newest era, nothing offered.
    pub(super) fn unknown() -> Self {
        Self {
            era: Era::Modern,
            protocol_version: LATEST_PROTOCOL_VERSION.to_owned(),
            capabilities: ServerCapabilities::default(),
            server_info: None,
            instructions: None,
        }
    }

    fn modern(result: DiscoverResult) -> Self {
        let server_info = result
            .meta
            .as_ref()
            .and_then(|meta| meta.get(meta_keys::SERVER_INFO))
            .and_then(|info| serde_json::from_value(info.clone()).ok());
        Self {
            era: Era::Modern,
            protocol_version: LATEST_PROTOCOL_VERSION.to_owned(),
            capabilities: result.capabilities,
            server_info,
            instructions: result.instructions,
        }
    }
}

/// What a `server/discover` probe says about the server's era.
enum Probe {
    Modern(Box<DiscoverResult>),
    /// A 2026-07-28 server that asks for a version it names: try again.
    Retry,
    Legacy,
}

impl Client {
    /// Finds the era (or takes the pinned one) and opens the conversation:
    /// `server/discover`, or `initialize` and `notifications/initialized`.
    pub(super) async fn negotiate(&self, pinned: Option<Era>) -> Result<(), ClientError> {
        if pinned == Some(Era::Legacy) {
            return self.initialize().await;
        }
        for _ in 0..2 {
            match self.probe(pinned.is_some()).await? {
                Probe::Modern(result) => {
                    if let Some(http) = self.wire.http() {
                        http.set_modern(LATEST_PROTOCOL_VERSION);
                    }
                    self.set_negotiated(Negotiated::modern(*result));
                    return Ok(());
                }
                Probe::Retry => continue,
                Probe::Legacy if pinned.is_none() => return self.initialize().await,
                Probe::Legacy => break,
            }
        }
        Err(ClientError::Unsupported(format!(
            "{} does not speak MCP {LATEST_PROTOCOL_VERSION}",
            self.target
        )))
    }

    /// Sends `server/discover` and reads the era from what comes back.
    /// With `strict` (the era is pinned to 2026-07-28) every failure is an
    /// error rather than a sign of the 2025 era.
    async fn probe(&self, strict: bool) -> Result<Probe, ClientError> {
        if let Some(http) = self.wire.http() {
            http.set_modern(LATEST_PROTOCOL_VERSION);
        }
        let limit = match self.wire.http() {
            Some(_) => self.limits.request_timeout,
            None => self.limits.discover_timeout,
        };
        let sent = tokio::time::timeout(
            limit,
            self.request_in(
                Era::Modern,
                request_methods::SERVER_DISCOVER,
                JsonObject::new(),
                None,
            ),
        )
        .await;
        let outcome = match sent {
            Ok(outcome) => outcome,
            Err(_) if strict => return Err(ClientError::Timeout(limit)),
            Err(_) => {
                tracing::debug!(
                    "{}: no answer to server/discover within {limit:?}: the 2025 era",
                    self.target
                );
                return Ok(Probe::Legacy);
            }
        };
        match outcome {
            Ok(result) => {
                let result: DiscoverResult = match super::decode(result) {
                    Ok(result) => result,
                    Err(error) if strict => return Err(error),
                    Err(error) => {
                        tracing::debug!(
                            "{}: server/discover answered oddly ({error}): the 2025 era",
                            self.target
                        );
                        return Ok(Probe::Legacy);
                    }
                };
                if result
                    .supported_versions
                    .iter()
                    .any(|v| v == LATEST_PROTOCOL_VERSION)
                {
                    Ok(Probe::Modern(Box::new(result)))
                } else if result
                    .supported_versions
                    .iter()
                    .any(|v| LEGACY_PROTOCOL_VERSIONS.contains(&v.as_str()))
                {
                    Ok(Probe::Legacy)
                } else {
                    Err(no_common_version(&result.supported_versions))
                }
            }
            Err(ClientError::Protocol(error))
                if error.code == codes::UNSUPPORTED_PROTOCOL_VERSION =>
            {
                let supported: Vec<String> = error
                    .data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(|s| serde_json::from_value(s.clone()).ok())
                    .unwrap_or_default();
                if supported.iter().any(|v| v == LATEST_PROTOCOL_VERSION) {
                    Ok(Probe::Retry)
                } else if supported
                    .iter()
                    .any(|v| LEGACY_PROTOCOL_VERSIONS.contains(&v.as_str()))
                {
                    Ok(Probe::Legacy)
                } else {
                    Err(no_common_version(&supported))
                }
            }
            Err(error) if strict => Err(error),
            Err(
                error @ (ClientError::Protocol(_)
                | ClientError::HttpStatus { .. }
                | ClientError::MalformedResponse(_)),
            ) => {
                if matches!(
                    error,
                    ClientError::HttpStatus {
                        status: 401 | 403,
                        ..
                    }
                ) {
                    return Err(error);
                }
                tracing::debug!(
                    "{}: server/discover failed ({error}): the 2025 era",
                    self.target
                );
                Ok(Probe::Legacy)
            }
            Err(error) => Err(error),
        }
    }

    /// Opens a 2025-era session: `initialize` with the newest 2025
    /// version, then `notifications/initialized`; over HTTP the session id
    /// is kept and the session's GET stream opened.
    pub(super) async fn initialize(&self) -> Result<(), ClientError> {
        if let Some(http) = self.wire.http() {
            http.set_session(None, None);
        }
        let params = serde_json::json!({
            "protocolVersion": LEGACY_PROTOCOL_VERSIONS[0],
            "capabilities": self.legacy_capabilities(),
            "clientInfo": self.client_info,
        });
        let Value::Object(params) = params else {
            return Err(ClientError::Encode("initialize params".into()));
        };
        let result = self
            .request_in(Era::Legacy, request_methods::INITIALIZE, params, None)
            .await?;
        let result: InitializeResult = super::decode(result)?;
        if !LEGACY_PROTOCOL_VERSIONS.contains(&result.protocol_version.as_str()) {
            return Err(ClientError::Unsupported(format!(
                "{} answered initialize with protocol version {:?}, which this client does not speak",
                self.target, result.protocol_version
            )));
        }
        if let Some(http) = self.wire.http() {
            let id = http.session_id();
            http.set_session(Some(&result.protocol_version), id);
        }
        self.set_negotiated(Negotiated {
            era: Era::Legacy,
            protocol_version: result.protocol_version,
            capabilities: result.capabilities,
            server_info: Some(result.server_info),
            instructions: result.instructions,
        });
        self.notify(notification_methods::INITIALIZED, None).await?;
        self.open_session_stream().await;
        if let Some(level) = self.log_level() {
            // A session opened anew (after a 404) asks for the kept level.
            let params = serde_json::json!({ "level": level });
            if let Value::Object(params) = params
                && let Err(e) = self
                    .request_in(Era::Legacy, "logging/setLevel", params, None)
                    .await
            {
                tracing::debug!("{}: logging/setLevel in the new session: {e}", self.target);
            }
        }
        Ok(())
    }

    /// The capabilities a 2025-era `initialize` declares: the 2026 shape
    /// plus `roots.listChanged`.
    fn legacy_capabilities(&self) -> Value {
        let mut capabilities = serde_json::to_value(&self.capabilities).unwrap_or_default();
        if let Some(roots) = capabilities.get_mut("roots").and_then(Value::as_object_mut) {
            roots.insert("listChanged".into(), Value::Bool(true));
        }
        capabilities
    }
}

fn no_common_version(supported: &[String]) -> ClientError {
    ClientError::Unsupported(format!(
        "the server supports {supported:?}, none of which this client speaks"
    ))
}

/// The default bound on a `server/discover` probe over stdio, after which
/// the server is taken for a 2025-era one.
pub(super) const DISCOVER_TIMEOUT: Duration = Duration::from_secs(5);
