//! Streamable HTTP on axum: one endpoint, `POST` only.
//!
//! A request is answered with `application/json`, or with a
//! `text/event-stream` when its handler emits notifications (progress, log
//! messages) before it finishes: the stream carries them, then the
//! response, then ends. The transport enforces the body limit, the
//! `Host`/`Origin` rule and the caller's bearer token, reads the MCP
//! headers, and leaves every protocol rule to the server's dispatch.

mod guard;

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header::{ACCEPT, AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response as HttpResponse};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

pub use guard::HostPolicy;

use crate::schema::McpError;
use crate::server::{
    BoxFuture, Caller, HttpRequestHeaders, Incoming, Notifier, ReceiveContext, Response, Server,
    TransportKind, parse_message,
};

/// The default request body limit: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Validates a bearer token and names the caller, or refuses it (`None`,
/// answered with HTTP 401).
pub trait Authenticator: Send + Sync + 'static {
    /// Checks `token` (the part after `Bearer `).
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Option<Caller>>;
}

impl<F> Authenticator for F
where
    F: Fn(&str) -> Option<Caller> + Send + Sync + 'static,
{
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Option<Caller>> {
        let caller = self(token);
        Box::pin(async move { caller })
    }
}

/// Configures and binds the streamable HTTP transport of a [`Server`].
#[must_use = "the transport does nothing until it is bound and served"]
pub struct HttpTransport {
    server: Server,
    path: String,
    max_body_bytes: usize,
    host_policy: Option<HostPolicy>,
    authenticator: Option<Arc<dyn Authenticator>>,
}

impl HttpTransport {
    /// A transport serving `server` at `/mcp`.
    pub fn new(server: Server) -> Self {
        Self {
            server,
            path: "/mcp".to_owned(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            host_policy: None,
            authenticator: None,
        }
    }

    /// The endpoint path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// The largest request body accepted; larger ones get HTTP 413.
    pub fn max_body_bytes(mut self, limit: usize) -> Self {
        self.max_body_bytes = limit;
        self
    }

    /// Which `Host` and `Origin` values are accepted. By default a server
    /// bound to a loopback address accepts only loopback names, and any
    /// other server refuses every `Origin`.
    pub fn host_policy(mut self, policy: HostPolicy) -> Self {
        self.host_policy = Some(policy);
        self
    }

    /// Requires a bearer token on every request, validated by
    /// `authenticator`; the caller it names reaches every handler (and,
    /// with a request-state signer, the state's binding).
    pub fn authenticate(mut self, authenticator: impl Authenticator) -> Self {
        self.authenticator = Some(Arc::new(authenticator));
        self
    }

    /// The axum router, for embedding in a larger application. Without a
    /// host policy, the loopback policy applies.
    pub fn into_router(self) -> Router {
        let policy = self.host_policy.clone().unwrap_or(HostPolicy::Loopback);
        self.router_with(policy)
    }

    fn router_with(self, host_policy: HostPolicy) -> Router {
        let state = Arc::new(Endpoint {
            server: self.server,
            max_body_bytes: self.max_body_bytes,
            host_policy,
            authenticator: self.authenticator,
        });
        Router::new()
            .route(&self.path, axum::routing::post(post))
            .with_state(state)
    }

    /// Binds `addr` (e.g. `127.0.0.1:0`).
    pub async fn bind(self, addr: impl tokio::net::ToSocketAddrs) -> io::Result<BoundHttp> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let policy = self.host_policy.clone().unwrap_or_else(|| {
            if local_addr.ip().is_loopback() {
                HostPolicy::Loopback
            } else {
                HostPolicy::AllowOrigins(Vec::new())
            }
        });
        let path = self.path.clone();
        let server = self.server.clone();
        Ok(BoundHttp {
            listener,
            local_addr,
            path,
            server,
            router: self.router_with(policy),
        })
    }
}

/// A bound, not yet serving, HTTP transport.
pub struct BoundHttp {
    listener: TcpListener,
    local_addr: SocketAddr,
    path: String,
    server: Server,
    router: Router,
}

impl BoundHttp {
    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local_addr, self.path)
    }

    /// Serves until SIGINT or SIGTERM, then finishes the requests in flight.
    pub async fn serve(self) -> io::Result<()> {
        self.serve_until(shutdown_signal()).await
    }

    /// Serves until `shutdown` completes, then finishes the requests in
    /// flight; open `subscriptions/listen` streams end with their closing
    /// result.
    pub async fn serve_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> io::Result<()> {
        let server = self.server;
        let shutdown = async move {
            shutdown.await;
            server.close_subscriptions();
        };
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(shutdown)
            .await
    }
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    tracing::info!("shutting down");
}

struct Endpoint {
    server: Server,
    max_body_bytes: usize,
    host_policy: HostPolicy,
    authenticator: Option<Arc<dyn Authenticator>>,
}

async fn post(
    State(endpoint): State<Arc<Endpoint>>,
    headers: HeaderMap,
    body: Body,
) -> HttpResponse {
    if let Err(reason) = guard::check(&endpoint.host_policy, &headers) {
        tracing::warn!(%reason, "refused a request (DNS-rebinding protection)");
        return plain_error(
            StatusCode::FORBIDDEN,
            "Forbidden: the Host or Origin is not allowed",
        );
    }
    let caller = match &endpoint.authenticator {
        None => None,
        Some(authenticator) => match bearer_token(&headers) {
            Some(token) => match authenticator.authenticate(token).await {
                Some(caller) => Some(Arc::new(caller)),
                None => return unauthorized(),
            },
            None => return unauthorized(),
        },
    };
    if !is_json_content(&headers) {
        return plain_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported media type: send Content-Type: application/json",
        );
    }
    let (accepts_json, accepts_sse) = accepted(&headers);
    if !accepts_json && !accepts_sse {
        return plain_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not acceptable: accept application/json and text/event-stream",
        );
    }
    let bytes = match read_body(body, &headers, endpoint.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(status) => {
            return plain_error(status, "Payload too large");
        }
    };
    let request = match parse_message(&bytes) {
        Ok(Incoming::Request(request)) => request,
        Ok(Incoming::Notification { method, .. }) => {
            tracing::debug!(method, "accepted a notification");
            return StatusCode::ACCEPTED.into_response();
        }
        Err(response) => return json_response(&response),
    };
    let receive = ReceiveContext {
        transport: TransportKind::Http,
        caller,
        headers: Some(mcp_headers(&headers)),
    };
    if !accepts_sse {
        let response = endpoint
            .server
            .handle_request(request, receive, Notifier::disabled())
            .await;
        return json_response(&response);
    }

    let (notes_tx, mut notes_rx) = mpsc::channel::<String>(32);
    let server = endpoint.server.clone();
    let mut task = AbortOnDrop(tokio::spawn(async move {
        server
            .handle_request(request, receive, Notifier::new(notes_tx))
            .await
    }));
    tokio::select! {
        biased;
        note = notes_rx.recv() => match note {
            Some(first) => stream(first, notes_rx, task),
            None => json_response(&task.finish().await),
        },
        joined = &mut task.0 => json_response(&joined_response(joined)),
    }
}

/// Streams `first`, the notifications that follow, and the response.
fn stream(first: String, mut notes: mpsc::Receiver<String>, mut task: AbortOnDrop) -> HttpResponse {
    let (frames_tx, frames_rx) = mpsc::channel::<Result<Bytes, Infallible>>(32);
    tokio::spawn(async move {
        if frames_tx.send(Ok(sse_frame(&first))).await.is_err() {
            return; // the client left: dropping `task` cancels the handler
        }
        while let Some(note) = notes.recv().await {
            if frames_tx.send(Ok(sse_frame(&note))).await.is_err() {
                return;
            }
        }
        let response = task.finish().await;
        let _ = frames_tx.send(Ok(sse_frame(&response.to_json()))).await;
    });
    let mut response = Body::from_stream(ReceiverStream::new(frames_rx)).into_response();
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

fn sse_frame(json: &str) -> Bytes {
    Bytes::from(format!("event: message\ndata: {json}\n\n"))
}

/// Aborts the handler task when the HTTP exchange is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<Response>);

impl AbortOnDrop {
    async fn finish(&mut self) -> Response {
        joined_response((&mut self.0).await)
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn joined_response(joined: Result<Response, tokio::task::JoinError>) -> Response {
    joined.unwrap_or_else(|error| {
        Response::error(
            None,
            McpError::internal(format!("the request task failed: {error}")),
        )
    })
}

fn json_response(response: &Response) -> HttpResponse {
    let status = response.error_value().map_or(StatusCode::OK, status_of);
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        response.to_json(),
    )
        .into_response()
}

/// The HTTP status of an error response, as 2026-07-28 fixes them.
fn status_of(error: &McpError) -> StatusCode {
    match error {
        McpError::ParseError { .. }
        | McpError::InvalidRequest { .. }
        | McpError::InvalidMeta { .. }
        | McpError::HeaderMismatch { .. }
        | McpError::MissingClientCapability { .. }
        | McpError::UnsupportedProtocolVersion { .. } => StatusCode::BAD_REQUEST,
        McpError::MethodNotFound { .. } => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

fn plain_error(status: StatusCode, message: &'static str) -> HttpResponse {
    let body = format!(r#"{{"jsonrpc":"2.0","error":{{"code":-32600,"message":"{message}"}}}}"#);
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body,
    )
        .into_response()
}

fn unauthorized() -> HttpResponse {
    let mut response = plain_error(
        StatusCode::UNAUTHORIZED,
        "Unauthorized: a valid bearer token is required",
    );
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim())
}

fn is_json_content(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// Whether the client accepts JSON and SSE. A missing `Accept` accepts both.
fn accepted(headers: &HeaderMap) -> (bool, bool) {
    let mut values = headers.get_all(ACCEPT).iter().peekable();
    if values.peek().is_none() {
        return (true, true);
    }
    let (mut json, mut sse) = (false, false);
    for value in values {
        let Ok(value) = value.to_str() else { continue };
        for media in value.split(',') {
            let media = media
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            match media.as_str() {
                "*/*" => (json, sse) = (true, true),
                "application/json" | "application/*" => json = true,
                "text/event-stream" | "text/*" => sse = true,
                _ => {}
            }
        }
    }
    (json, sse)
}

/// Reads the body, refusing more than `limit` bytes with 413.
async fn read_body(body: Body, headers: &HeaderMap, limit: usize) -> Result<Bytes, StatusCode> {
    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > limit as u64) {
        return Err(StatusCode::PAYLOAD_TOO_LARGE);
    }
    axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| StatusCode::PAYLOAD_TOO_LARGE)
}

fn header_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_owned())
}

/// The MCP headers, trimmed; non-ASCII values are treated as absent.
fn mcp_headers(headers: &HeaderMap) -> HttpRequestHeaders {
    let params = headers
        .iter()
        .filter_map(|(name, value)| {
            let suffix = name.as_str().strip_prefix("mcp-param-")?;
            Some((suffix.to_owned(), value.to_str().ok()?.trim().to_owned()))
        })
        .collect();
    HttpRequestHeaders {
        protocol_version: header_value(headers, "mcp-protocol-version"),
        method: header_value(headers, "mcp-method"),
        name: header_value(headers, "mcp-name"),
        params,
    }
}
