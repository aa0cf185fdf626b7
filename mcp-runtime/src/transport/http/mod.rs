//! Streamable HTTP on axum: one endpoint.
//!
//! A request is `POST`ed and answered with `application/json`, or with a
//! `text/event-stream` when its handler sends something before it finishes
//! (progress, log messages, and for a 2025-era client the server's own
//! requests): the stream carries them, then the response, then ends. The
//! transport enforces the body limit, the `Host`/`Origin` rule and the
//! caller's bearer token, reads the MCP headers, and leaves every protocol
//! rule to the server's dispatch.
//!
//! 2025-era clients have sessions: `initialize` opens one, named by the
//! `MCP-Session-Id` of its response, which every later message carries
//! (without it: 400; unknown or ended: 404). Their responses and
//! notifications are `POST`ed too (202); `GET` opens the session's
//! standalone stream of list changes and resource updates; `DELETE` ends
//! the session.
//!
//! This file holds the configuration, the binding and what every method
//! shares; `admit` holds the checks every method passes first (the
//! `Host`/`Origin` rule of `guard`, the bearer token, the session a message
//! names), `post`, `get` and `delete` the path of each method, `routes`
//! which of them a request goes to (the axum router an application embeds;
//! a served connection's `POST`s to the path skip it), `serve` accepts and
//! serves connections (`write_deadline` disconnects a peer that
//! stops reading), `limits` holds the bounds and their defaults
//! ([`HttpLimits`]), `request`
//! reads a request, `respond` writes the answer, `sessions` keeps the
//! 2025-era sessions by id (owner, idle expiry, each with its session
//! driver, shared with stdio, which runs and cancels its requests and takes
//! its client's messages) and `resume` their numbered, resumable streams.

mod admit;
mod delete;
mod get;
mod guard;
mod limits;
mod post;
mod request;
mod respond;
mod resume;
mod routes;
mod serve;
mod sessions;
mod write_deadline;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;

pub use admit::Authenticator;
pub use guard::HostPolicy;
pub use limits::HttpLimits;
// Kept for one release, hidden: `HttpLimits::default()` has each of them.
#[allow(deprecated)]
pub use limits::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_DRAIN_BYTES, DEFAULT_DRAIN_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT,
    DEFAULT_WRITE_TIMEOUT, default_max_connections,
};

use crate::auth::{ProtectedResource, TokenVerifier};
use crate::server::Server;
use admit::Protection;
use limits::{BodyLimits, ConnectionLimits};
use routes::Routes;
use sessions::Sessions;

/// Configures and binds the streamable HTTP transport of a [`Server`].
#[must_use = "the transport does nothing until it is bound and served"]
pub struct HttpTransport {
    server: Server,
    path: String,
    limits: HttpLimits,
    host_policy: Option<HostPolicy>,
    authenticator: Option<Arc<dyn Authenticator>>,
    protection: Option<Arc<Protection>>,
}
impl HttpTransport {
    /// A transport serving `server` at `/mcp`, with the default limits.
    pub fn new(server: Server) -> Self {
        Self {
            server,
            path: "/mcp".to_owned(),
            limits: HttpLimits::default(),
            host_policy: None,
            authenticator: None,
            protection: None,
        }
    }

    /// Sets every limit at once (see [`HttpLimits`] for each and its
    /// default); the setters below change one of them.
    pub fn limits(mut self, limits: HttpLimits) -> Self {
        self.limits = limits.normalized();
        self
    }

    /// The limits this transport applies: the defaults, changed by
    /// [`Self::limits`] and the setters of one limit.
    pub fn current_limits(&self) -> &HttpLimits {
        &self.limits
    }

    /// The most 2025-era sessions open at once ([`HttpLimits::max_sessions`],
    /// default 10,000, at least 1). When they are all open, a new one ends
    /// the session idle the longest; if none is idle, `initialize` is
    /// refused.
    pub fn max_sessions(mut self, limit: usize) -> Self {
        self.limits.max_sessions = limit.max(1);
        self
    }

    /// How long a 2025-era session may sit idle (no request running, no
    /// stream open) before it ends ([`HttpLimits::session_idle_timeout`],
    /// default 30 min); its client then gets 404 and opens a new one.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.limits.session_idle_timeout = timeout;
        self
    }

    /// The endpoint path (default `/mcp`).
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// The largest request body accepted ([`HttpLimits::max_body_bytes`],
    /// default 4 MiB); larger ones get HTTP 413.
    pub fn max_body_bytes(mut self, limit: usize) -> Self {
        self.limits.max_body_bytes = limit;
        self
    }

    /// How long a request body may take to arrive whole, from the end of
    /// its head ([`HttpLimits::body_timeout`], default 30 s). A slower body
    /// is answered HTTP 408, its connection closed and what had arrived
    /// freed.
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.limits.body_timeout = timeout;
        self
    }

    /// How much of a body refused with 413 is still read and discarded,
    /// and for how long ([`HttpLimits::drain_bytes`] and
    /// [`HttpLimits::drain_timeout`], defaults 64 MiB and 10 s): a client
    /// that writes its whole body before it reads then reads the 413
    /// instead of a reset connection. Past either bound the connection is
    /// closed. `(0, Duration::ZERO)` closes at once.
    pub fn oversize_drain(mut self, max_bytes: usize, max_time: Duration) -> Self {
        self.limits.drain_bytes = max_bytes;
        self.limits.drain_timeout = max_time;
        self
    }

    /// How long a connection may take to send the head of a request,
    /// counted from when the server starts waiting for it
    /// ([`HttpLimits::header_timeout`], default 30 s). It covers a
    /// connection that sends nothing, one that sends half a head, and a
    /// kept-alive connection idle between requests: each is closed when it
    /// runs out. A response being streamed (progress,
    /// `subscriptions/listen`) is not affected.
    ///
    /// Applies when the transport serves its own listener
    /// ([`Self::bind`]); a router embedded with [`Self::into_router`] is
    /// served, and bounded, by the embedding server.
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.limits.header_timeout = timeout;
        self
    }

    /// How long one write may wait for the peer to take it
    /// ([`HttpLimits::write_timeout`], default 30 s). A peer that stops
    /// reading, so that its answers pile up, is disconnected and its
    /// connection freed; time between writes (an event stream waiting for
    /// its next event) does not count. Applies to [`Self::bind`], not to an
    /// embedded router.
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.limits.write_timeout = timeout;
        self
    }

    /// The most connections served at once ([`HttpLimits::max_connections`],
    /// at least 1; default three quarters of the process's open-file
    /// limit, between 32 and 65,536). Further connections wait in the
    /// listen queue until one closes. Applies to [`Self::bind`], not to an
    /// embedded router.
    pub fn max_connections(mut self, limit: usize) -> Self {
        self.limits.max_connections = limit.max(1);
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

    /// Protects the endpoint as an OAuth 2.1 resource server (replacing
    /// [`Self::authenticate`]): every request needs a bearer token that
    /// `verifier` accepts for `resource`.
    ///
    /// - No token: 401, `WWW-Authenticate: Bearer scope="...",
    ///   resource_metadata="..."` (the required scopes, the metadata URL).
    /// - A token `verifier` refuses: 401 with `error="invalid_token"`; the
    ///   reason goes to the log, never the token.
    /// - A token without every required scope: 403 with
    ///   `error="insufficient_scope"` naming all of them.
    /// - A verifier that cannot decide: 503.
    ///
    /// The metadata document (RFC 9728) is served, without a token, at the
    /// resource's well-known path and at the root well-known path. The
    /// token's subject, client and scopes become the request's caller.
    pub fn protect(mut self, resource: ProtectedResource, verifier: impl TokenVerifier) -> Self {
        self.protection = Some(Arc::new(Protection {
            resource: Arc::new(resource),
            verifier: Box::new(verifier),
        }));
        self
    }

    /// The axum router, for embedding in a larger application. Without a
    /// host policy, the loopback policy applies. The body limits hold; the
    /// connection limits ([`Self::header_timeout`],
    /// [`Self::max_connections`]) are the embedding server's to set.
    pub fn into_router(self) -> Router {
        self.routes_or_loopback().into_router()
    }

    /// The routes under the transport's host policy, or the loopback
    /// policy when none is set (an embedded router, a connection handed
    /// over open): no bound address to choose a policy by.
    fn routes_or_loopback(self) -> Routes {
        let policy = self.host_policy.clone().unwrap_or(HostPolicy::Loopback);
        self.endpoint_with(policy).0
    }

    /// The routes, and the session table they serve (kept by a bound
    /// transport to expire sessions).
    fn endpoint_with(self, host_policy: HostPolicy) -> (Routes, Arc<Sessions>) {
        let sessions = Arc::new(Sessions::new(
            self.limits.max_sessions,
            self.limits.session_idle_timeout,
        ));
        let state = Arc::new(Endpoint {
            server: self.server,
            body: self.limits.body(),
            host_policy,
            authenticator: self.authenticator,
            protection: self.protection.clone(),
            sessions: Arc::clone(&sessions),
        });
        (Routes::new(&self.path, state), sessions)
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
        let limits = self.limits.connections();
        serve::serve_one(io, self.routes_or_loopback(), limits).await
    }

    /// Binds `addr` (e.g. `"127.0.0.1:0"`, `("0.0.0.0", 8080)` or a
    /// `SocketAddr`); of the addresses it resolves to, the first that can
    /// be bound. A host name (`"localhost:8080"`) is resolved by the
    /// system's resolver on the calling thread, once, before binding.
    pub async fn bind(self, addr: impl std::net::ToSocketAddrs) -> io::Result<BoundHttp> {
        let addrs: Vec<SocketAddr> = addr.to_socket_addrs()?.collect();
        let listener = TcpListener::bind(addrs.as_slice()).await?;
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
        let limits = self.limits.connections();
        let idle_timeout = self.limits.session_idle_timeout;
        let (routes, sessions) = self.endpoint_with(policy);
        Ok(BoundHttp {
            listener,
            local_addr,
            path,
            server,
            limits,
            routes,
            sessions,
            idle_timeout,
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
    routes: Routes,
    sessions: Arc<Sessions>,
    idle_timeout: Duration,
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
        let sessions = self.sessions;
        // Expired sessions are ended on the way (lookups, new sessions) and
        // here, so that an abandoned one does not wait for the next visitor.
        let every = (self.idle_timeout / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
        let sweeping = Arc::downgrade(&sessions);
        let sweeper = tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                match sweeping.upgrade() {
                    Some(sessions) => sessions.sweep(),
                    None => return,
                }
            }
        });
        let shutdown = async move {
            shutdown.await;
            server.close_subscriptions();
            sessions.end_all();
            sweeper.abort();
        };
        serve::serve(self.listener, self.routes, self.limits, shutdown).await
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
    protection: Option<Arc<Protection>>,
    sessions: Arc<Sessions>,
}
