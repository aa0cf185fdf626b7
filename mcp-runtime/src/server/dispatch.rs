//! The top of the one request path: the checks every request passes, in
//! the specification's order, then the method's own function.
//!
//! 1. `params._meta` with `protocolVersion` and `clientCapabilities`
//!    (`-32602`);
//! 2. on HTTP, `MCP-Protocol-Version` equals the `_meta` version (`-32020`);
//! 3. the version is supported (`-32022`);
//! 4. on HTTP, `Mcp-Method`, `Mcp-Name` agree with the body (`-32020`);
//! 5. the method exists on this server ([`methods::route`], `-32601`);
//! 6. the method's function ([`methods`]' table) takes it from there: for
//!    `tools/call`, `prompts/get` and `resources/read` that is
//!    [`calls`](super::calls), where the [`StateGate`](super::state_gate)
//!    verifies the echoed state before the handler and signs the next one
//!    after it.

use std::sync::Arc;

use serde_json::Value;

use super::context::RequestData;
use super::incoming::RoundTrip;
use super::methods::{self, Call, Route};
use super::registry::Registry;
use super::{Notifier, ReceiveContext, Request, Response, Server, calls, headers};
use crate::logged::Wire;
use crate::schema::{JsonObject, McpError, RequestId, RequestMeta, SUPPORTED_PROTOCOL_VERSIONS};

impl Server {
    /// Serves one request through the single dispatch path. `receive` says
    /// what the transport knows (caller, HTTP headers); `notifier` carries
    /// the notifications the handler emits.
    pub async fn handle_request(
        &self,
        request: Request,
        receive: ReceiveContext,
        notifier: Notifier,
    ) -> Response {
        let Request {
            id,
            method,
            params,
            round_trip,
        } = request;
        // The method stays here (for the log) and dispatch borrows it: no
        // copy of it per request.
        let run = std::panic::AssertUnwindSafe(dispatch(
            &self.inner,
            Envelope {
                id: id.clone(),
                method: &method,
                params,
                round_trip,
            },
            receive,
            notifier,
        ));
        let outcome = match futures_util::FutureExt::catch_unwind(run).await {
            Ok(outcome) => outcome,
            Err(panic) => Err(McpError::internal(format!(
                "the handler panicked: {}",
                panic_message(panic.as_ref())
            ))),
        };
        match outcome {
            Ok(result) => Response::result(id, result),
            Err(error) => {
                log_error(&method, &id, &error);
                Response::error(Some(id), error)
            }
        }
    }

    /// The server's self-description.
    pub fn info(&self) -> &crate::schema::Implementation {
        &self.inner.info
    }
}

/// A request as dispatch takes it: the method borrowed from the caller.
struct Envelope<'a> {
    id: RequestId,
    method: &'a str,
    params: Option<Value>,
    round_trip: RoundTrip,
}

async fn dispatch(
    registry: &Registry,
    request: Envelope<'_>,
    receive: ReceiveContext,
    notifier: Notifier,
) -> Result<String, McpError> {
    let Envelope {
        id,
        method,
        params,
        round_trip,
    } = request;
    let (params, meta) = read_meta(params)?;
    if let Some(headers) = &receive.headers {
        headers::check_protocol_version(headers, &meta.protocol_version)?;
    }
    if !SUPPORTED_PROTOCOL_VERSIONS.contains(&meta.protocol_version.as_str()) {
        return Err(McpError::UnsupportedProtocolVersion {
            requested: meta.protocol_version,
        });
    }
    if let Some(headers) = &receive.headers {
        headers::check_method_and_name(headers, method, &params)?;
    }
    let route = methods::route(registry, method)?;
    let data = RequestData {
        request_id: id,
        method: route.name(method),
        meta,
        input_responses: None,
        request_state: None,
        receive,
        notifier,
        state_payload: None,
        signer: None,
        shared: Arc::clone(&registry.shared),
        changes: registry.changes.clone(),
    };
    let call = Call {
        params,
        round_trip,
        data,
    };
    match route {
        Route::Core { serve, .. } => serve(registry, call).await,
        Route::Extension(handler) => calls::extension(registry, handler, call).await,
    }
}

/// The params object and its `_meta`, which every 2026-07-28 request carries.
fn read_meta(params: Option<Value>) -> Result<(JsonObject, RequestMeta), McpError> {
    let params = match params {
        Some(Value::Object(params)) => params,
        Some(_) => return Err(invalid_meta("params must be an object carrying _meta")),
        None => return Err(invalid_meta("params._meta is required")),
    };
    let meta = match params.get("_meta") {
        Some(Value::Object(meta)) => RequestMeta::from_json(meta).map_err(invalid_meta)?,
        Some(_) => return Err(invalid_meta("params._meta must be an object")),
        None => return Err(invalid_meta("params._meta is required")),
    };
    Ok((params, meta))
}

fn invalid_meta(detail: impl Into<String>) -> McpError {
    McpError::InvalidMeta {
        detail: detail.into(),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

fn log_error(method: &str, id: &RequestId, error: &McpError) {
    match error {
        McpError::Internal { detail } => {
            tracing::error!(
                method = %Wire(method),
                id = %Wire(&id.to_string()),
                detail = %detail,
                "request failed with an internal error"
            );
        }
        other => tracing::debug!(
            method = %Wire(method),
            id = %Wire(&id.to_string()),
            error = %Wire(&other.to_string()),
            "request refused"
        ),
    }
}
