//! The top of the one request path: a message read (`incoming.rs`), the
//! request's era, decided here and nowhere else ([`era`]); for a
//! 2026-07-28 request the checks every request passes, in the
//! specification's order; then the method's own function, found in the
//! method table (`table.rs`), which hands it the parts of the server
//! (`registry.rs`) it needs. [`Server`] is the handle transports hold.
//!
//! A request whose `_meta` carries the 2026-07-28 keys is served as
//! 2026-07-28, whatever else is true. `initialize` opens a 2025-era session
//! ([`legacy::initialize`]). Any other request of a 2025-era session (or,
//! when the server serves 2025-era clients statelessly, any request
//! without the 2026-07-28 keys) is served as 2025: with the session's
//! capabilities, the 2025-only methods, results in their 2025 shape, and
//! input-required rounds bridged. A 2026-07-28 request goes through:
//!
//! 1. `params._meta` with `protocolVersion` and `clientCapabilities`
//!    (`-32602`);
//! 2. on HTTP, `MCP-Protocol-Version` equals the `_meta` version (`-32020`);
//! 3. the version is supported (`-32022`);
//! 4. on HTTP, `Mcp-Method`, `Mcp-Name` agree with the body (`-32020`);
//! 5. the method exists on this server ([`table::route`], `-32601`);
//! 6. the method's function takes it from there: for `tools/call`,
//!    `prompts/get` and `resources/read` that is the `methods` room, which
//!    runs the handler through the `round` room, where the state gate
//!    verifies the echoed state before the handler and signs the next one
//!    after it.
//!
//! This room uses the rooms it routes to (`methods`, `subscriptions`,
//! `tasks`, `legacy`) and those a request's data is made of (`round`,
//! `handler`, `url_steps`, `notify`); `builder` uses it.

mod arguments;
mod incoming;
mod log;
mod meta;
mod params;
mod registry;
mod response;
mod table;
#[cfg(all(test, not(feature = "tasks")))]
mod tasks_off;

pub use incoming::{Incoming, Request, parse_message};
pub(crate) use registry::Registry;
pub use response::Response;
pub(crate) use table::is_reserved;

use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::budget::MemoryBudget;
use crate::receive_context::ReceiveContext;
use crate::schema::request_methods::{INITIALIZE, PROMPTS_GET, RESOURCES_READ, TOOLS_CALL};
use crate::schema::{
    Implementation, JsonObject, McpError, RequestId, RequestMeta, SUPPORTED_PROTOCOL_VERSIONS,
};
use crate::server::handler::{Asked, RequestData, RoundTrip};
use crate::server::legacy::{self, Introduction, LegacyClients, Session};
use crate::server::methods::{self, headers};
use crate::server::notify::{ChangeNotifier, Notifier};
use crate::server::round::Call;
use crate::server::url_steps::UrlSteps;
use arguments::restore_arguments;
use log::{handler_named, log_error};
use meta::{MetaText, read_meta, with_meta};
use table::{Route, Served};

/// A configured MCP server. Cheap to clone; share it across transports.
#[derive(Clone)]
pub struct Server {
    inner: Arc<Registry>,
}

impl Server {
    /// The server of a registry `build()` made.
    pub(crate) fn from_registry(registry: Registry) -> Self {
        Self {
            inner: Arc::new(registry),
        }
    }

    /// The memory budget for what peers make the server hold: its limit,
    /// and what is held now (the figure to monitor).
    pub fn memory(&self) -> &MemoryBudget {
        &self.inner.core.memory.budget
    }

    /// Announces list and resource changes to open `subscriptions/listen`
    /// streams and 2025-era sessions.
    pub fn changes(&self) -> ChangeNotifier {
        self.inner.services.changes.clone()
    }

    /// The URL steps given to `ServerBuilder::url_steps`: the handle the
    /// application's web route marks steps complete through.
    pub fn url_steps(&self) -> Option<&UrlSteps> {
        self.inner.services.url_steps.as_ref()
    }

    /// Ends every open `subscriptions/listen` stream with its closing
    /// result: what a transport does when it shuts down.
    pub fn close_subscriptions(&self) {
        self.inner.closing.close();
    }

    /// Serves one request that belongs to no 2025-era session through the
    /// single dispatch path. `receive` says what the transport knows
    /// (caller, HTTP headers); `notifier` carries the notifications the
    /// handler emits.
    pub async fn handle_request(
        &self,
        request: Request,
        receive: ReceiveContext,
        notifier: Notifier,
    ) -> Response {
        self.handle(request, receive, None, notifier).await
    }

    /// Serves one request of the 2025-era `session` (the one its
    /// `MCP-Session-Id` names on HTTP; the connection's on stdio), as
    /// [`Self::handle_request`] does.
    pub async fn handle_session_request(
        &self,
        request: Request,
        receive: ReceiveContext,
        session: Session,
        notifier: Notifier,
    ) -> Response {
        self.handle(request, receive, Some(session), notifier).await
    }

    /// Serves one request, in `session` when it belongs to one: what
    /// [`Self::handle_request`] and [`Self::handle_session_request`] do,
    /// and what the transports' drivers call (one future the fewer). The
    /// future owns what it needs (the server's registry shared), so a
    /// driver builds it before its own future and holds it once.
    pub(crate) fn handle(
        &self,
        request: Request,
        receive: ReceiveContext,
        session: Option<Session>,
        notifier: Notifier,
    ) -> impl Future<Output = Response> + Send + 'static + use<> {
        let registry = Arc::clone(&self.inner);
        serve_request(registry, request, receive, session, notifier)
    }

    /// Takes a client's notification within a 2025-era session:
    /// `notifications/initialized` is recorded; the rest need nothing from
    /// the server (`notifications/cancelled` is the transport's: it stops
    /// the request's task).
    pub fn handle_notification(&self, method: &str, session: &Session) {
        if method == crate::schema::notification_methods::INITIALIZED {
            session.mark_initialized();
        }
    }

    /// The server's self-description.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }
}

/// [`Server::handle`]'s future.
async fn serve_request(
    registry: Arc<Registry>,
    request: Request,
    receive: ReceiveContext,
    session: Option<Session>,
    notifier: Notifier,
) -> Response {
    let Request {
        id,
        method,
        params,
        meta,
        arguments,
        round_trip,
    } = request;
    let era = era(&registry, &method, meta.as_deref(), session.is_some());
    // The tool, prompt or resource the request names, for the log line
    // of an internal error: copied only when that line can be written.
    let handler = if tracing::enabled!(tracing::Level::WARN) {
        handler_named(&method, params.as_ref())
    } else {
        None
    };
    // The method stays here (for the log) and dispatch borrows it: no
    // copy of it per request. Boxed once, here: the request's whole
    // path is a future of several KiB, and the transport's futures
    // around it stay small enough to move cheaply.
    let run = std::panic::AssertUnwindSafe(Box::pin(dispatch(
        &registry,
        era,
        Envelope {
            id: id.clone(),
            method: &method,
            params,
            meta,
            arguments,
            round_trip,
        },
        receive,
        session,
        notifier,
    )));
    let outcome = match futures_util::FutureExt::catch_unwind(run).await {
        Ok(outcome) => outcome,
        Err(panic) => Err(McpError::internal(format!(
            "the handler panicked: {}",
            panic_message(panic.as_ref())
        ))),
    };
    let response = match outcome {
        Ok(Answered {
            result,
            opened: None,
        }) => Response::result(id, result),
        Ok(Answered {
            result,
            opened: Some(session),
        }) => Response::result(id, result).opening(session),
        Err(error) => {
            log_error(&method, &id, handler.as_deref(), &error);
            Response::error(Some(id), error)
        }
    };
    match era {
        Era::Modern => response,
        Era::Initialize | Era::Legacy => response.in_2025_era(),
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let catalog = &self.inner.core.catalog;
        f.debug_struct("Server")
            .field("name", &self.inner.info.name)
            .field("tools", &catalog.tools.len())
            .field("prompts", &catalog.prompts.len())
            .field("resources", &catalog.resources.len())
            .field("resource_templates", &catalog.templates.len())
            .finish()
    }
}

/// A request as dispatch takes it: the method borrowed from the caller.
struct Envelope<'a> {
    id: RequestId,
    method: &'a str,
    params: Option<Value>,
    meta: Option<Box<MetaText>>,
    arguments: Option<Box<RawValue>>,
    round_trip: RoundTrip,
}

/// A request's result, and the session it opened (`initialize`).
struct Answered {
    result: String,
    opened: Option<Session>,
}

impl From<String> for Answered {
    fn from(result: String) -> Self {
        Self {
            result,
            opened: None,
        }
    }
}

/// The protocol era a request belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    /// 2026-07-28: stateless, every request carries its `_meta`.
    Modern,
    /// `initialize`: opens a 2025-era session.
    Initialize,
    /// A 2025-era request (in a session, or served statelessly).
    Legacy,
}

/// Decides the era of a request: the one place that does.
fn era(registry: &Registry, method: &str, meta: Option<&MetaText>, in_session: bool) -> Era {
    if meta.is_some_and(MetaText::declares_modern) {
        Era::Modern
    } else if method == INITIALIZE {
        Era::Initialize
    } else if in_session || registry.legacy == LegacyClients::Stateless {
        Era::Legacy
    } else {
        // Neither: the 2026-07-28 checks refuse it (`_meta` is required).
        Era::Modern
    }
}

async fn dispatch(
    registry: &Registry,
    era: Era,
    request: Envelope<'_>,
    receive: ReceiveContext,
    session: Option<Session>,
    notifier: Notifier,
) -> Result<Answered, McpError> {
    // The checks and the choice of method are synchronous: what is awaited
    // is the method's own (boxed) future, so this one stays small.
    let served = match era {
        // A 2026-07-28 request relies on nothing earlier, a session included.
        Era::Modern => modern(registry, request, receive, notifier)?,
        Era::Initialize => {
            let introduction = Introduction {
                info: &registry.info,
                instructions: registry.lists.instructions.as_ref(),
                capabilities: |session| registry.core.catalog.legacy_capabilities(session),
                memory: &registry.core.memory,
            };
            let params = with_meta(request.params, request.meta);
            let (result, opened) =
                legacy::initialize(registry.legacy, params, session.as_ref(), introduction)?;
            return Ok(Answered { result, opened });
        }
        Era::Legacy => legacy_request(registry, request, receive, session, notifier)?,
    };
    served.await.map(Answered::from)
}

/// A 2026-07-28 request: the checks in the specification's order, then its
/// method, started.
fn modern<'r>(
    registry: &'r Registry,
    request: Envelope<'_>,
    receive: ReceiveContext,
    notifier: Notifier,
) -> Result<Served<'r>, McpError> {
    let Envelope {
        id,
        method,
        params,
        meta,
        arguments,
        round_trip,
    } = request;
    let (params, typed) = read_meta(params, meta.as_deref())?;
    if let Some(headers) = &receive.headers {
        headers::check_protocol_version(headers, &typed.protocol_version)?;
    }
    if !SUPPORTED_PROTOCOL_VERSIONS.contains(&typed.protocol_version.as_str()) {
        return Err(McpError::UnsupportedProtocolVersion {
            requested: typed.protocol_version,
        });
    }
    if let Some(headers) = &receive.headers {
        headers::check_method_and_name(headers, method, &params)?;
    }
    let route = table::route(registry, method, Asked::Modern)?;
    let data = request_data(registry, id, route.name(method), typed, receive, notifier);
    let kept = Kept {
        meta,
        arguments,
        round_trip,
    };
    Ok(serve(registry, route, params, kept, data))
}

/// A 2025-era request: served with its session's `_meta` (or, without a
/// session, the version its header names), by the 2025 rows of the method
/// table, with its result in the 2025 shape. Its method, started.
fn legacy_request<'r>(
    registry: &'r Registry,
    request: Envelope<'_>,
    receive: ReceiveContext,
    session: Option<Session>,
    notifier: Notifier,
) -> Result<Served<'r>, McpError> {
    let Envelope {
        id,
        method,
        params,
        meta,
        arguments,
        round_trip,
    } = request;
    let mut params = match params {
        None => JsonObject::new(),
        Some(Value::Object(params)) => params,
        Some(_) => return Err(McpError::invalid_params("params must be an object")),
    };
    // A 2025-era request's `_meta` is read from its params, as before.
    MetaText::restore_into(meta, &mut params);
    let meta = legacy::request_meta(&params, &receive, session.as_ref())?;
    let asked = Asked::Legacy {
        session: session.is_some(),
    };
    let route = table::route(registry, method, asked)?;
    let data = request_data(registry, id, route.name(method), meta, receive, notifier)
        .in_2025_era(session);
    let kept = Kept {
        meta: None,
        arguments,
        round_trip,
    };
    Ok(serve(registry, route, params, kept, data))
}

/// The request's data, in the `Arc` the handler's [`Ctx`](crate::server::Ctx)
/// will share: built there once, and changed in place until then
/// (`Arc::make_mut` of an `Arc` nothing else holds copies nothing).
fn request_data(
    registry: &Registry,
    request_id: RequestId,
    method: std::borrow::Cow<'static, str>,
    meta: RequestMeta,
    receive: ReceiveContext,
    notifier: Notifier,
) -> Arc<RequestData> {
    Arc::new(RequestData::new(
        request_id,
        method,
        meta,
        receive,
        notifier,
        Arc::clone(&registry.services),
    ))
}

/// What a request's params had kept apart as read.
struct Kept {
    meta: Option<Box<MetaText>>,
    arguments: Option<Box<RawValue>>,
    round_trip: RoundTrip,
}

/// Hands the request to its method's function, which returns its future.
/// `arguments` go to `tools/call` as sent; any other method finds them in
/// its params. `_meta` was read already; the methods whose params are read
/// whole (lists, completions, extensions, tasks) find it in their params,
/// the three that ask for input do not read it there.
fn serve(
    registry: &Registry,
    route: Route,
    mut params: JsonObject,
    kept: Kept,
    data: Arc<RequestData>,
) -> Served<'_> {
    if !matches!(
        route,
        Route::Core {
            name: TOOLS_CALL | PROMPTS_GET | RESOURCES_READ,
            ..
        }
    ) {
        MetaText::restore_into(kept.meta, &mut params);
    }
    let arguments = match &route {
        Route::Core {
            name: TOOLS_CALL, ..
        } => kept.arguments,
        _ => {
            restore_arguments(kept.arguments, &mut params);
            None
        }
    };
    let call = Call {
        params,
        arguments,
        round_trip: kept.round_trip,
        data,
    };
    match route {
        Route::Core { serve, .. } => serve(registry, call),
        Route::Extension(handler) => Box::pin(methods::extension(&registry.core, handler, call)),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}
