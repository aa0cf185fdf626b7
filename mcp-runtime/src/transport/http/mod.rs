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
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header::{ACCEPT, AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response as HttpResponse};
use futures_util::Stream;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

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

    let (notes_tx, notes_rx) = mpsc::channel::<String>(NOTE_BUFFER);
    // The handler runs on this task, not a spawned one: most requests end
    // without a notification and are answered with plain JSON. It is boxed
    // so that, if a notification comes first, it can move into the body of
    // the event stream and keep running there.
    let handling = Box::pin(guarded(async move {
        endpoint
            .server
            .handle_request(request, receive, Notifier::new(notes_tx))
            .await
    }));
    respond(handling, notes_rx).await
}

/// How many serialised notifications a handler may queue before its
/// notifier waits for the stream to take them.
const NOTE_BUFFER: usize = 32;

/// Catches a panic that escapes the server's own catch, so that it becomes
/// an internal error rather than a dropped connection.
async fn guarded(handling: impl Future<Output = Response>) -> Response {
    use futures_util::FutureExt as _;
    std::panic::AssertUnwindSafe(handling)
        .catch_unwind()
        .await
        .unwrap_or_else(|_| {
            Response::error(
                None,
                McpError::internal("the request task failed: it panicked"),
            )
        })
}

/// Drives `handling` until it finishes (answered with JSON) or emits its
/// first notification (answered with an event stream that carries the rest
/// of the exchange). Dropping the returned future, as when the client
/// leaves, drops the handler.
async fn respond<F>(mut handling: Pin<Box<F>>, mut notes: mpsc::Receiver<String>) -> HttpResponse
where
    F: Future<Output = Response> + Send + 'static,
{
    tokio::select! {
        biased;
        note = notes.recv() => match note {
            Some(first) => event_stream(EventStream {
                first: Some(first),
                notes,
                handling: Some(handling),
                response: None,
            }),
            // Every notifier is gone yet the handler runs on: it cannot
            // notify any more.
            None => json_response(&handling.await),
        },
        response = &mut handling => match notes.try_recv() {
            // Notified on its last step: the notifications still come first.
            Ok(first) => event_stream(EventStream::<F> {
                first: Some(first),
                notes,
                handling: None,
                response: Some(response),
            }),
            Err(_) => json_response(&response),
        },
    }
}

/// The body of an event stream: the first notification, those that follow,
/// then the response once every notifier is gone. It drives the handler
/// itself, so when the client leaves and the body is dropped, the handler
/// is dropped with it.
struct EventStream<F> {
    /// The notification that opened the stream, not yet sent.
    first: Option<String>,
    /// The handler's notifications.
    notes: mpsc::Receiver<String>,
    /// The handler, until it finishes.
    handling: Option<Pin<Box<F>>>,
    /// The finished handler's response, sent after the last notification.
    response: Option<Response>,
}

impl<F> Stream for EventStream<F>
where
    F: Future<Output = Response>,
{
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(first) = this.first.take() {
            return Poll::Ready(Some(Ok(sse_frame(&first))));
        }
        loop {
            match this.notes.poll_recv(cx) {
                Poll::Ready(Some(note)) => return Poll::Ready(Some(Ok(sse_frame(&note)))),
                Poll::Ready(None) => {
                    // Every notifier is gone: the response ends the stream.
                    let response = match (this.response.take(), this.handling.as_mut()) {
                        (Some(response), _) => response,
                        (None, Some(handling)) => match handling.as_mut().poll(cx) {
                            Poll::Ready(response) => response,
                            Poll::Pending => return Poll::Pending,
                        },
                        (None, None) => return Poll::Ready(None),
                    };
                    this.handling = None;
                    return Poll::Ready(Some(Ok(sse_frame(&response.to_json()))));
                }
                Poll::Pending => {}
            }
            let Some(handling) = this.handling.as_mut() else {
                return Poll::Pending;
            };
            match handling.as_mut().poll(cx) {
                // Its notifier is dropped now: look at the notes again.
                Poll::Ready(response) => {
                    this.handling = None;
                    this.response = Some(response);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// An event-stream response whose body is `events`.
fn event_stream<F>(events: EventStream<F>) -> HttpResponse
where
    F: Future<Output = Response> + Send + 'static,
{
    let mut response = Body::from_stream(events).into_response();
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    response
}

/// Asks a proxy (nginx) not to buffer the event stream.
const X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");

/// One server-sent event carrying the JSON-RPC message `json`.
fn sse_frame(json: &str) -> Bytes {
    Bytes::from(format!("event: message\ndata: {json}\n\n"))
}

/// `response` as `application/json`, with the status its error fixes.
fn json_response(response: &Response) -> HttpResponse {
    let status = response.error_value().map_or(StatusCode::OK, status_of);
    json_body(status, response.to_json())
}

/// A `status` response carrying `json` as `application/json`. Built
/// directly: a `String` body set through `IntoResponse` would first get a
/// `text/plain` type, then have it replaced.
fn json_body(status: StatusCode, json: String) -> HttpResponse {
    let mut response = HttpResponse::new(Body::from(json));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
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
    json_body(status, body)
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
        .is_some_and(|media| media.trim_ascii().eq_ignore_ascii_case("application/json"))
}

/// Whether the client accepts JSON and SSE. A missing `Accept` accepts both.
fn accepted(headers: &HeaderMap) -> (bool, bool) {
    let mut values = headers.get_all(ACCEPT).iter().peekable();
    if values.peek().is_none() {
        return (true, true);
    }
    let (mut json, mut sse) = (false, false);
    for value in values {
        // A value that is not visible ASCII is skipped whole.
        if value.to_str().is_err() {
            continue;
        }
        for media in value.as_bytes().split(|&b| b == b',') {
            let range = media
                .split(|&b| b == b';')
                .next()
                .unwrap_or_default()
                .trim_ascii();
            if range == b"*/*" {
                (json, sse) = (true, true);
            } else if range.eq_ignore_ascii_case(b"application/json")
                || range.eq_ignore_ascii_case(b"application/*")
            {
                json = true;
            } else if range.eq_ignore_ascii_case(b"text/event-stream")
                || range.eq_ignore_ascii_case(b"text/*")
            {
                sse = true;
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

/// A header value without its surrounding whitespace; `None` if it is not
/// visible ASCII.
fn header_value(value: &HeaderValue) -> Option<&str> {
    value.to_str().ok().map(str::trim_ascii)
}

/// The MCP headers, trimmed; non-ASCII values are treated as absent. Of a
/// repeated `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` the first
/// value counts; every `Mcp-Param-*` value is kept. One pass over the
/// headers: names arrive lowercase, so plain prefix comparisons suffice.
fn mcp_headers(headers: &HeaderMap) -> HttpRequestHeaders {
    // `None` until the header is met, then the first value (if ASCII).
    let mut protocol_version: Option<Option<&str>> = None;
    let mut method: Option<Option<&str>> = None;
    let mut name: Option<Option<&str>> = None;
    let mut params = Vec::new();
    for (header, value) in headers {
        let Some(rest) = header.as_str().strip_prefix("mcp-") else {
            continue;
        };
        let first = match rest {
            "protocol-version" => &mut protocol_version,
            "method" => &mut method,
            "name" => &mut name,
            _ => {
                if let (Some(suffix), Some(value)) =
                    (rest.strip_prefix("param-"), header_value(value))
                {
                    params.push((suffix.to_owned(), value.to_owned()));
                }
                continue;
            }
        };
        if first.is_none() {
            *first = Some(header_value(value));
        }
    }
    let owned = |value: Option<Option<&str>>| value.flatten().map(str::to_owned);
    HttpRequestHeaders {
        protocol_version: owned(protocol_version),
        method: owned(method),
        name: owned(name),
        params,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&'static str, &[u8])]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            let value = HeaderValue::from_bytes(value).expect("a valid header value");
            headers.append(HeaderName::from_static(name), value);
        }
        headers
    }

    #[test]
    fn accept_ranges_ignore_case_and_parameters() {
        let accepts = |values: &[&'static str]| {
            let pairs: Vec<_> = values.iter().map(|v| ("accept", v.as_bytes())).collect();
            accepted(&map(&pairs))
        };
        assert_eq!(accepted(&HeaderMap::new()), (true, true));
        assert_eq!(
            accepts(&["application/json, text/event-stream"]),
            (true, true)
        );
        assert_eq!(
            accepts(&["Application/JSON;q=0.9", "TEXT/Event-Stream ; q=1"]),
            (true, true)
        );
        assert_eq!(accepts(&["application/*"]), (true, false));
        assert_eq!(accepts(&["text/*;q=0.1"]), (false, true));
        assert_eq!(accepts(&[" */* "]), (true, true));
        assert_eq!(accepts(&["text/html, application/xml"]), (false, false));
        assert_eq!(accepts(&["application/jsonx"]), (false, false));
        assert_eq!(accepts(&[""]), (false, false));
    }

    #[test]
    fn accept_values_that_are_not_ascii_are_skipped() {
        let headers = map(&[
            ("accept", b"application/json\xff"),
            ("accept", b"text/event-stream"),
        ]);
        assert_eq!(accepted(&headers), (false, true));
    }

    #[test]
    fn mcp_headers_are_trimmed_and_the_first_value_counts() {
        let headers = map(&[
            ("host", b"localhost"),
            ("mcp-protocol-version", b" 2026-07-28 "),
            ("mcp-method", b"tools/call"),
            ("mcp-method", b"tools/list"),
            ("mcp-name", b"\xffname"),
            ("mcp-name", b"second"),
            ("mcp-param-region", b" eu "),
            ("mcp-param-region", b"us"),
            ("mcp-param-bad", b"\xff"),
            ("mcp-param-", b"empty suffix"),
            ("mcp-other", b"ignored"),
        ]);
        let found = mcp_headers(&headers);
        assert_eq!(found.protocol_version.as_deref(), Some("2026-07-28"));
        assert_eq!(found.method.as_deref(), Some("tools/call"));
        assert_eq!(found.name, None, "a non-ASCII first value is absent");
        assert_eq!(
            found.params,
            [
                ("region".to_owned(), "eu".to_owned()),
                ("region".to_owned(), "us".to_owned()),
                (String::new(), "empty suffix".to_owned()),
            ]
        );
        assert_eq!(
            mcp_headers(&HeaderMap::new()),
            HttpRequestHeaders::default()
        );
    }

    #[test]
    fn json_bodies_carry_only_the_json_type() {
        let response = plain_error(StatusCode::FORBIDDEN, "Forbidden");
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        let types: Vec<_> = response.headers().get_all(CONTENT_TYPE).iter().collect();
        assert_eq!(types, [HeaderValue::from_static("application/json")]);
        assert_eq!(response.headers().len(), 1);
    }
}
