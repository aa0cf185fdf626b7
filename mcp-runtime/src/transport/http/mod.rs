//! Streamable HTTP on axum: one endpoint, `POST` only.
//!
//! A request is answered with `application/json`, or with a
//! `text/event-stream` when its handler emits notifications (progress, log
//! messages) before it finishes: the stream carries them, then the
//! response, then ends. The transport enforces the body limit, the
//! `Host`/`Origin` rule and the caller's bearer token, reads the MCP
//! headers, and leaves every protocol rule to the server's dispatch.
//!
//! This file holds the configuration, the binding and the path of one
//! `POST`; `serve` accepts and serves connections (`write_deadline`
//! disconnects a peer that stops reading), `limits` holds the
//! bounds and their defaults, `request` reads a request, `respond` writes
//! the answer and `guard` holds the `Host`/`Origin` rule.

mod guard;
mod limits;
mod request;
mod respond;
mod serve;
mod write_deadline;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response as HttpResponse};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

pub use guard::HostPolicy;
pub use limits::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_DRAIN_BYTES, DEFAULT_DRAIN_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_BODY_BYTES, DEFAULT_WRITE_TIMEOUT, default_max_connections,
};

use crate::BoxFuture;
use crate::logged::Wire;
use crate::server::{
    Caller, Incoming, Notifier, ReceiveContext, Server, TransportKind, parse_message,
};
use guard::Refusal;
use limits::{BodyLimits, ConnectionLimits};
use request::{
    BodyError, accepted, bearer_token, discard, is_json_content, mcp_headers, read_body,
};
use respond::{NOTE_BUFFER, closing, guarded, json_response, plain_error, respond, unauthorized};

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
    body: BodyLimits,
    connections: ConnectionLimits,
    host_policy: Option<HostPolicy>,
    authenticator: Option<Arc<dyn Authenticator>>,
}

impl HttpTransport {
    /// A transport serving `server` at `/mcp`, with the default limits.
    pub fn new(server: Server) -> Self {
        Self {
            server,
            path: "/mcp".to_owned(),
            body: BodyLimits::default(),
            connections: ConnectionLimits::default(),
            host_policy: None,
            authenticator: None,
        }
    }

    /// The endpoint path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// The largest request body accepted (default
    /// [`DEFAULT_MAX_BODY_BYTES`]); larger ones get HTTP 413.
    pub fn max_body_bytes(mut self, limit: usize) -> Self {
        self.body.max_bytes = limit;
        self
    }

    /// How long a request body may take to arrive whole, from the end of
    /// its head (default [`DEFAULT_BODY_TIMEOUT`]). A slower body is
    /// answered HTTP 408, its connection closed and what had arrived freed.
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body.timeout = timeout;
        self
    }

    /// How much of a body refused with 413 is still read and discarded,
    /// and for how long (defaults [`DEFAULT_DRAIN_BYTES`] and
    /// [`DEFAULT_DRAIN_TIMEOUT`]): a client that writes its whole body
    /// before it reads then reads the 413 instead of a reset connection.
    /// Past either bound the connection is closed. `(0, Duration::ZERO)`
    /// closes at once.
    pub fn oversize_drain(mut self, max_bytes: usize, max_time: Duration) -> Self {
        self.body.drain_bytes = max_bytes;
        self.body.drain_timeout = max_time;
        self
    }

    /// How long a connection may take to send the head of a request,
    /// counted from when the server starts waiting for it (default
    /// [`DEFAULT_HEADER_TIMEOUT`]). It covers a connection that sends
    /// nothing, one that sends half a head, and a kept-alive connection
    /// idle between requests: each is closed when it runs out. A response
    /// being streamed (progress, `subscriptions/listen`) is not affected.
    ///
    /// Applies when the transport serves its own listener
    /// ([`Self::bind`]); a router embedded with [`Self::into_router`] is
    /// served, and bounded, by the embedding server.
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.connections.header_timeout = timeout;
        self
    }

    /// How long one write may wait for the peer to take it (default
    /// [`DEFAULT_WRITE_TIMEOUT`]). A peer that stops reading, so that its
    /// answers pile up, is disconnected and its connection freed; time
    /// between writes (an event stream waiting for its next event) does
    /// not count. Applies to [`Self::bind`], not to an embedded router.
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.connections.write_timeout = timeout;
        self
    }

    /// The most connections served at once (default
    /// [`default_max_connections`]: three quarters of the process's
    /// open-file limit). Further connections wait in the listen queue until
    /// one closes. Applies to [`Self::bind`], not to an embedded router.
    pub fn max_connections(mut self, limit: usize) -> Self {
        self.connections.max_connections = limit.max(1);
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
    /// host policy, the loopback policy applies. The body limits hold; the
    /// connection limits ([`Self::header_timeout`],
    /// [`Self::max_connections`]) are the embedding server's to set.
    pub fn into_router(self) -> Router {
        let policy = self.host_policy.clone().unwrap_or(HostPolicy::Loopback);
        self.router_with(policy)
    }

    fn router_with(self, host_policy: HostPolicy) -> Router {
        let state = Arc::new(Endpoint {
            server: self.server,
            body: self.body,
            host_policy,
            authenticator: self.authenticator,
        });
        Router::new()
            .route(&self.path, axum::routing::post(post))
            .with_state(state)
    }

    /// Serves one connection that is already open, `io`, with this
    /// transport's settings (the loopback host policy unless another is
    /// set), until it closes: what a bound transport does with each
    /// accepted socket. For fuzzing and for tests of the HTTP framing; not
    /// part of the stable API.
    #[doc(hidden)]
    pub async fn serve_connection<I>(self, io: I) -> Result<(), hyper::Error>
    where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let limits = self.connections;
        serve::serve_one(io, self.into_router(), limits).await
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
        let limits = self.connections;
        Ok(BoundHttp {
            listener,
            local_addr,
            path,
            server,
            limits,
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
    limits: ConnectionLimits,
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
        serve::serve(self.listener, self.router, self.limits, shutdown).await
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

/// What every request to the endpoint shares: the server and the
/// transport's settings.
struct Endpoint {
    server: Server,
    body: BodyLimits,
    host_policy: HostPolicy,
    authenticator: Option<Arc<dyn Authenticator>>,
}

/// Answers one `POST`: the `Host`/`Origin` guard, the bearer token, the
/// content type, the accepted types, the body, then the message, handed to
/// the server.
async fn post(
    State(endpoint): State<Arc<Endpoint>>,
    headers: HeaderMap,
    body: Body,
) -> HttpResponse {
    match guard::check(&endpoint.host_policy, &headers) {
        Ok(()) => {}
        Err(Refusal::Malformed(reason)) => {
            tracing::warn!(%reason, "refused a request with malformed Host or Origin headers");
            return plain_error(
                StatusCode::BAD_REQUEST,
                "Bad request: send exactly one Host header and at most one Origin",
            );
        }
        Err(Refusal::NotAllowed(reason)) => {
            tracing::warn!(%reason, "refused a request (DNS-rebinding protection)");
            return plain_error(
                StatusCode::FORBIDDEN,
                "Forbidden: the Host or Origin is not allowed",
            );
        }
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
    let limits = endpoint.body;
    let bytes =
        match tokio::time::timeout(limits.timeout, read_body(body, &headers, limits.max_bytes))
            .await
        {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(BodyError::TooLarge(rest))) => {
                if let Some(rest) = rest {
                    discard(rest, limits.drain_bytes, limits.drain_timeout);
                }
                return closing(plain_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "Payload too large",
                ));
            }
            Ok(Err(BodyError::Broken)) => {
                return closing(plain_error(
                    StatusCode::BAD_REQUEST,
                    "Bad request: the body is incomplete or its framing is invalid",
                ));
            }
            Err(_elapsed) => {
                tracing::debug!(timeout = ?limits.timeout, "a request body did not arrive in time");
                return closing(plain_error(
                    StatusCode::REQUEST_TIMEOUT,
                    "Request timeout: the body did not arrive in time",
                ));
            }
        };
    let request = match parse_message(&bytes) {
        Ok(Incoming::Request(request)) => request,
        Ok(Incoming::Notification { method, .. }) => {
            tracing::debug!(method = %Wire(&method), "accepted a notification");
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
