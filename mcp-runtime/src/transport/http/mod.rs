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
//! This file holds the configuration, the binding and the path of each
//! method; `serve` accepts and serves connections (`write_deadline`
//! disconnects a peer that stops reading), `limits` holds the
//! bounds and their defaults, `request` reads a request, `respond` writes
//! the answer, `sessions` keeps the 2025-era sessions and `guard` holds the
//! `Host`/`Origin` rule.

mod guard;
mod limits;
mod request;
mod respond;
mod resume;
mod serve;
mod sessions;
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
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT,
    DEFAULT_WRITE_TIMEOUT, default_max_connections,
};

use crate::BoxFuture;
use crate::auth::{Challenge, METADATA_PATH, ProtectedResource, TokenError, TokenVerifier};
use crate::logged::Wire;
use crate::schema::{CancelledNotificationParams, McpError, notification_methods};
use crate::server::{
    Caller, Incoming, Notifier, ReceiveContext, Request, Response, Server, Session, StreamClose,
    TransportKind, parse_message,
};
use guard::Refusal;
use limits::{BodyLimits, ConnectionLimits, SessionLimits};
use request::{
    BodyError, accepted, bearer_token, discard, is_json_content, mcp_headers, read_body,
};
use respond::{
    MCP_SESSION_ID, NOTE_BUFFER, challenged, closing, guarded, json_body, json_response,
    plain_error, respond, sse_response, unauthorized,
};
use sessions::Sessions;

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
    sessions: SessionLimits,
    host_policy: Option<HostPolicy>,
    authenticator: Option<Arc<dyn Authenticator>>,
    protection: Option<Arc<Protection>>,
}

/// A protected resource and the verifier of its tokens.
struct Protection {
    resource: Arc<ProtectedResource>,
    verifier: Box<dyn TokenVerifier>,
}

impl HttpTransport {
    /// A transport serving `server` at `/mcp`, with the default limits.
    pub fn new(server: Server) -> Self {
        Self {
            server,
            path: "/mcp".to_owned(),
            body: BodyLimits::default(),
            connections: ConnectionLimits::default(),
            sessions: SessionLimits::default(),
            host_policy: None,
            authenticator: None,
            protection: None,
        }
    }

    /// The most 2025-era sessions open at once (default
    /// [`DEFAULT_MAX_SESSIONS`]). When they are all open, a new one ends
    /// the session idle the longest; if none is idle, `initialize` is
    /// refused.
    pub fn max_sessions(mut self, limit: usize) -> Self {
        self.sessions.max_sessions = limit.max(1);
        self
    }

    /// How long a 2025-era session may sit idle (no request running, no
    /// stream open) before it ends (default [`DEFAULT_SESSION_IDLE_TIMEOUT`]);
    /// its client then gets 404 and opens a new one.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.sessions.idle_timeout = timeout;
        self
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
        let policy = self.host_policy.clone().unwrap_or(HostPolicy::Loopback);
        self.router_with(policy)
    }

    fn router_with(self, host_policy: HostPolicy) -> Router {
        self.endpoint_with(host_policy).0
    }

    /// The router, and the session table it serves (kept by a bound
    /// transport to expire sessions).
    fn endpoint_with(self, host_policy: HostPolicy) -> (Router, Arc<Sessions>) {
        let sessions = Arc::new(Sessions::new(
            self.sessions.max_sessions,
            self.sessions.idle_timeout,
        ));
        let state = Arc::new(Endpoint {
            server: self.server,
            body: self.body,
            host_policy,
            authenticator: self.authenticator,
            protection: self.protection.clone(),
            sessions: Arc::clone(&sessions),
        });
        let mut router = Router::new().route(
            &self.path,
            axum::routing::post(post).get(get).delete(delete),
        );
        if let Some(protection) = &self.protection {
            let own = protection.resource.metadata_path();
            router = router.route(&own, axum::routing::get(metadata));
            if own != METADATA_PATH {
                router = router.route(METADATA_PATH, axum::routing::get(metadata));
            }
        }
        (router.with_state(state), sessions)
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
        let idle_timeout = self.sessions.idle_timeout;
        let (router, sessions) = self.endpoint_with(policy);
        Ok(BoundHttp {
            listener,
            local_addr,
            path,
            server,
            limits,
            router,
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
    router: Router,
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
    protection: Option<Arc<Protection>>,
    sessions: Arc<Sessions>,
}

/// The checks every method of the endpoint passes first: the
/// `Host`/`Origin` guard and the bearer token. The caller, or the refusal.
async fn admit(
    endpoint: &Endpoint,
    headers: &HeaderMap,
) -> Result<Option<Arc<Caller>>, HttpResponse> {
    match guard::check(&endpoint.host_policy, headers) {
        Ok(()) => {}
        Err(Refusal::Malformed(reason)) => {
            tracing::warn!(%reason, "refused a request with malformed Host or Origin headers");
            return Err(plain_error(
                StatusCode::BAD_REQUEST,
                "Bad request: send exactly one Host header and at most one Origin",
            ));
        }
        Err(Refusal::NotAllowed(reason)) => {
            tracing::warn!(%reason, "refused a request (DNS-rebinding protection)");
            return Err(plain_error(
                StatusCode::FORBIDDEN,
                "Forbidden: the Host or Origin is not allowed",
            ));
        }
    }
    if let Some(protection) = &endpoint.protection {
        return protected(protection, headers).await.map(Some);
    }
    match &endpoint.authenticator {
        None => Ok(None),
        Some(authenticator) => match bearer_token(headers) {
            Some(token) => match authenticator.authenticate(token).await {
                Some(caller) => Ok(Some(Arc::new(caller))),
                None => Err(unauthorized()),
            },
            None => Err(unauthorized()),
        },
    }
}

/// The caller of a request to a protected endpoint, or its refusal with
/// the challenge that says why.
async fn protected(
    protection: &Protection,
    headers: &HeaderMap,
) -> Result<Arc<Caller>, HttpResponse> {
    let resource = &protection.resource;
    let Some(token) = bearer_token(headers) else {
        return Err(challenged(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: a bearer token is required",
            &resource.challenge(Challenge::NoToken),
        ));
    };
    let mut caller = match protection.verifier.verify(token).await {
        Ok(caller) => caller,
        Err(TokenError::Invalid(reason)) => {
            tracing::info!(reason = %Wire(&reason), "refused a bearer token");
            return Err(challenged(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: the bearer token is invalid or expired",
                &resource.challenge(Challenge::InvalidToken),
            ));
        }
        Err(TokenError::Unavailable(reason)) => {
            tracing::warn!(reason = %Wire(&reason), "could not verify a bearer token");
            return Err(plain_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service unavailable: the token cannot be verified now; retry later",
            ));
        }
    };
    // A broader scope grants the narrower ones it implies, for every check
    // from here on.
    caller.scopes = resource.granted(std::mem::take(&mut caller.scopes));
    let required = resource.required();
    if required.iter().any(|scope| !caller.has_scope(scope)) {
        return Err(challenged(
            StatusCode::FORBIDDEN,
            "Forbidden: the bearer token lacks a required scope",
            &resource.challenge(Challenge::InsufficientScope(required)),
        ));
    }
    Ok(Arc::new(caller))
}

/// `GET` of the protected-resource metadata document (RFC 9728), after the
/// `Host`/`Origin` guard; no token is needed.
async fn metadata(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap) -> HttpResponse {
    if guard::check(&endpoint.host_policy, &headers).is_err() {
        return plain_error(
            StatusCode::FORBIDDEN,
            "Forbidden: the Host or Origin is not allowed",
        );
    }
    match &endpoint.protection {
        Some(protection) => json_body(StatusCode::OK, protection.resource.metadata().to_string()),
        None => plain_error(StatusCode::NOT_FOUND, "Not found"),
    }
}

/// What a message's `MCP-Session-Id` names.
enum Named {
    /// No session: the header is absent.
    Nothing,
    /// An open session of this caller.
    Session(Session),
    /// A session that is unknown, ended, expired, or another caller's: 404.
    Unknown,
}

fn session_of(endpoint: &Endpoint, headers: &HeaderMap, caller: Option<&Caller>) -> Named {
    let Some(id) = headers.get(MCP_SESSION_ID) else {
        return Named::Nothing;
    };
    let subject = caller.map_or("", |c| c.subject.as_str());
    match id
        .to_str()
        .ok()
        .and_then(|id| endpoint.sessions.get(id, subject))
    {
        Some(session) => Named::Session(session),
        None => Named::Unknown,
    }
}

/// 404 for a message naming a session that is not (or no longer) open.
fn no_such_session() -> HttpResponse {
    plain_error(
        StatusCode::NOT_FOUND,
        "Not found: no such session (it ended or expired); initialize a new one",
    )
}

/// Answers one `POST`: the `Host`/`Origin` guard, the bearer token, the
/// content type, the accepted types, the body, then the message, handed to
/// the server (a request) or to its session (a response or notification).
async fn post(
    State(endpoint): State<Arc<Endpoint>>,
    headers: HeaderMap,
    body: Body,
) -> HttpResponse {
    let caller = match admit(&endpoint, &headers).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
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
    let session = match session_of(&endpoint, &headers, caller.as_deref()) {
        Named::Nothing => None,
        Named::Session(session) => Some(session),
        Named::Unknown => return no_such_session(),
    };
    let request = match parse_message(&bytes) {
        Ok(Incoming::Request(request)) => request,
        Ok(Incoming::Notification { method, params }) => {
            tracing::debug!(method = %Wire(&method), "accepted a notification");
            if let Some(session) = &session {
                if method == notification_methods::CANCELLED {
                    let cancelled = params.and_then(|p| {
                        serde_json::from_value::<CancelledNotificationParams>(
                            serde_json::Value::Object(p),
                        )
                        .ok()
                    });
                    if let Some(cancelled) = cancelled {
                        endpoint
                            .sessions
                            .cancel(session.id(), &cancelled.request_id);
                    }
                } else {
                    endpoint.server.handle_notification(&method, session);
                }
            }
            return StatusCode::ACCEPTED.into_response();
        }
        Ok(Incoming::Response(response)) => {
            let Some(session) = &session else {
                return plain_error(
                    StatusCode::BAD_REQUEST,
                    "Bad request: a response must carry the MCP-Session-Id of the session \
                     whose request it answers",
                );
            };
            // Accepted either way: an answer that comes after the server
            // stopped waiting is the client's due, not its fault (and some
            // clients drop their connection on any other status).
            if let Err(unknown) = session.deliver(response) {
                tracing::info!(unknown = %Wire(&unknown.to_string()), "ignored a response");
            }
            return StatusCode::ACCEPTED.into_response();
        }
        Err(response) => return json_response(&response),
    };
    let receive = ReceiveContext {
        transport: TransportKind::Http,
        caller,
        headers: Some(mcp_headers(&headers)),
        protected: endpoint
            .protection
            .as_ref()
            .map(|p| Arc::clone(&p.resource)),
    };
    if !accepts_sse {
        let response = handle(&endpoint, request, receive, session, Notifier::disabled()).await;
        return json_response(&response);
    }

    let (notes_tx, notes_rx) = mpsc::channel::<String>(NOTE_BUFFER);
    // A session's stream is numbered and may be closed by its handler and
    // resumed by its client.
    let resumable = session.clone().map(|session| {
        let logs = endpoint.sessions.logs_of(session.id());
        (session, logs, StreamClose::new())
    });
    let notifier = match &resumable {
        Some((_, _, close)) => Notifier::new(notes_tx).closable(close.clone()),
        None => Notifier::new(notes_tx),
    };
    // The handler runs on this task, not a spawned one: most requests end
    // without a notification and are answered with plain JSON. It is boxed
    // so that, if a notification comes first, it can move into the body of
    // the event stream and keep running there.
    let handling = Box::pin(guarded(async move {
        handle(&endpoint, request, receive, session, notifier).await
    }));
    match resumable {
        Some((session, logs, close)) => {
            resume::respond(handling, notes_rx, close, session, logs).await
        }
        None => respond(handling, notes_rx).await,
    }
}

/// Hands a request to the server. In a session, the request keeps the
/// session busy while it runs and can be cancelled by the client; the
/// session `initialize` opens is added to the table.
async fn handle(
    endpoint: &Endpoint,
    request: Request,
    receive: ReceiveContext,
    session: Option<Session>,
    notifier: Notifier,
) -> Response {
    let subject = receive.subject().to_owned();
    let Some(session) = session else {
        let response = endpoint
            .server
            .handle_request(request, receive, notifier)
            .await;
        return match response.opened_session() {
            Some(opened) => match endpoint.sessions.insert(opened.clone(), &subject) {
                Ok(()) => response,
                Err(sessions::Full) => {
                    opened.end();
                    Response::error(
                        response.id().cloned(),
                        McpError::Other(crate::schema::ErrorObject {
                            code: crate::schema::codes::INTERNAL_ERROR,
                            message: "Server busy: every session is in use; retry later".to_owned(),
                            data: None,
                        }),
                    )
                }
            },
            None => response,
        };
    };
    let id = request.id.clone();
    let (abort, registration) = futures_util::future::AbortHandle::new_pair();
    let _busy = endpoint
        .sessions
        .begin(session.id(), Some((id.clone(), abort)));
    let handling = endpoint
        .server
        .handle_session_request(request, receive, session, notifier);
    match futures_util::future::Abortable::new(handling, registration).await {
        Ok(response) => response,
        Err(futures_util::future::Aborted) => {
            tracing::debug!(id = %Wire(&id.to_string()), "request cancelled by the client");
            Response::cancelled(id)
        }
    }
}

/// Answers one `GET`: the standalone event stream of a 2025-era session,
/// carrying list changes and updates of the resources it subscribed to,
/// until the session ends or the client leaves. One per session (409
/// otherwise); without a session, 405.
async fn get(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap) -> HttpResponse {
    let caller = match admit(&endpoint, &headers).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    let session = match session_of(&endpoint, &headers, caller.as_deref()) {
        Named::Session(session) => session,
        Named::Nothing => {
            return plain_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method not allowed: GET opens the event stream of a 2025-era session; \
                 send its MCP-Session-Id",
            );
        }
        Named::Unknown => return no_such_session(),
    };
    if !accepted(&headers).1 {
        return plain_error(
            StatusCode::NOT_ACCEPTABLE,
            "Not acceptable: accept text/event-stream",
        );
    }
    let resumed = headers
        .get(LAST_EVENT_ID)
        .and_then(|id| id.to_str().ok())
        .and_then(resume::parse_event_id)
        .and_then(|(stream, after)| Some((endpoint.sessions.log(session.id(), stream)?, after)));
    if let Some((log, after)) = resumed {
        return resume::resume(log, after);
    }
    let Some(busy) = endpoint.sessions.open_stream(session.id()) else {
        return plain_error(
            StatusCode::CONFLICT,
            "Conflict: this session's event stream is already open",
        );
    };
    let changes = endpoint.server.changes().subscribe();
    let stream = endpoint.sessions.logs_of(session.id()).next_stream();
    let primed = futures_util::stream::once(async move {
        Ok::<_, std::convert::Infallible>(resume::priming(stream))
    });
    let events = futures_util::stream::unfold(
        (changes, session, busy, 1_u64),
        move |(mut changes, session, busy, n)| async move {
            loop {
                let change = tokio::select! {
                    change = changes.recv() => change,
                    () = session.ended() => return None,
                };
                match change {
                    Ok(change) => {
                        if let Some(json) = session.notification_for(&change) {
                            let frame =
                                Ok::<_, std::convert::Infallible>(resume::event(stream, n, &json));
                            return Some((frame, (changes, session, busy, n + 1)));
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(
                            missed,
                            "a session stream fell behind; changes were dropped"
                        );
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                }
            }
        },
    );
    use futures_util::StreamExt as _;
    sse_response(Body::from_stream(primed.chain(events)))
}

/// The header a client resumes an event stream with.
const LAST_EVENT_ID: axum::http::HeaderName = axum::http::HeaderName::from_static("last-event-id");

/// Answers one `DELETE`: ends the session it names (its questions fail,
/// its streams close). 404 for an unknown one, 400 without one.
async fn delete(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap) -> HttpResponse {
    let caller = match admit(&endpoint, &headers).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    let Some(id) = headers.get(MCP_SESSION_ID) else {
        return plain_error(
            StatusCode::BAD_REQUEST,
            "Bad request: DELETE ends a session; send its MCP-Session-Id",
        );
    };
    let subject = caller.as_deref().map_or("", |c| c.subject.as_str());
    match id.to_str() {
        Ok(id) if endpoint.sessions.remove(id, subject) => StatusCode::OK.into_response(),
        _ => plain_error(
            StatusCode::NOT_FOUND,
            "Not found: no such session (it ended or expired)",
        ),
    }
}
