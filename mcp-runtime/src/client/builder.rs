//! [`ClientBuilder`] and [`ClientLimits`]: where a client connects, who it
//! says it is, what it answers, and its bounds.

use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::time::Duration;

use serde_json::Value;

use super::era::{DISCOVER_TIMEOUT, Era, Negotiated};
use super::inbound::{MessageTap, NotificationHandler, Router};
use super::notifications::{Direction, ServerNotification};
use super::wire::{HttpWire, StdioWire, Wire};
use super::{Client, ClientError, Handlers};
use crate::schema::Implementation;

/// The bound on fulfilled `input_required` rounds per request by default.
const MAX_ROUNDS: usize = 10;
/// The bound on pages one `list_*` call follows by default.
const LIST_PAGES: usize = 1000;
/// The bound on the total time of one auto-fulfilled request by default.
const MAX_DURATION: Duration = Duration::from_secs(300);
/// The bound on waiting for one response by default.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
/// The bound on one message from the server by default: 16 MiB.
const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// The server's requests answered at once by default.
const MAX_SERVER_REQUESTS: usize = 16;
/// The bound on opening a TCP connection by default.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The bounds of a [`Client`]. Each field states its default, which
/// [`ClientLimits::default`] holds.
///
/// Set them at once with [`ClientBuilder::limits`], starting from the
/// defaults, or with [`ClientBuilder::max_rounds`] and
/// [`ClientBuilder::max_duration`], which write into the same settings.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::client::{Client, ClientLimits};
///
/// let mut limits = ClientLimits::default();
/// limits.max_rounds = 3;
/// limits.max_duration = Duration::from_secs(30);
/// let builder = Client::http("http://127.0.0.1:8080/mcp").limits(limits);
/// assert_eq!(builder.current_limits().max_rounds, 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientLimits {
    /// The most `input_required` rounds fulfilled for one request; the
    /// server asking again after that many ends the call with
    /// [`ClientError::RoundsExceeded`]. Default: 10.
    pub max_rounds: usize,
    /// The bound on the total time of one auto-fulfilled request, its
    /// rounds and the answering of them included; past it the call ends
    /// with [`ClientError::Timeout`]. Default: 5 min.
    pub max_duration: Duration,
    /// The most pages one `list_*` call follows, against a server whose
    /// cursors never end; past it the call ends with
    /// [`ClientError::MalformedResponse`]. At least 1 (0 is taken as 1).
    /// Default: 1,000.
    pub max_list_pages: usize,
    /// The bound on waiting for the response to one request (one round
    /// of a call); past it the request is cancelled and ends with
    /// [`ClientError::Timeout`]. It also bounds answering one of the
    /// server's requests, and sending a notification or an answer over
    /// HTTP until the server acknowledges it. Default: 2 min.
    pub request_timeout: Duration,
    /// The bound on a `server/discover` probe over stdio; a server that
    /// does not answer within it is taken for a 2025-era server.
    /// Default: 5 s.
    pub discover_timeout: Duration,
    /// The longest message accepted from the server: a JSON body, one
    /// SSE event or one stdio line. Default: 16 MiB.
    pub max_message_bytes: usize,
    /// The most requests of the server's (2025 era) answered at once; one
    /// more is refused as busy (a JSON-RPC error), and the client reads
    /// no further until the refusal is queued. Default: 16.
    pub max_server_requests: usize,
    /// The bound on opening a connection to an HTTP server. Default: 10 s.
    pub connect_timeout: Duration,
}

impl Default for ClientLimits {
    fn default() -> Self {
        Self {
            max_rounds: MAX_ROUNDS,
            max_duration: MAX_DURATION,
            max_list_pages: LIST_PAGES,
            request_timeout: REQUEST_TIMEOUT,
            discover_timeout: DISCOVER_TIMEOUT,
            max_message_bytes: MAX_MESSAGE_BYTES,
            max_server_requests: MAX_SERVER_REQUESTS,
            connect_timeout: CONNECT_TIMEOUT,
        }
    }
}

/// The default bound on fulfilled `input_required` rounds per request (10).
#[doc(hidden)]
#[deprecated(note = "use `ClientLimits::default().max_rounds`")]
pub const DEFAULT_MAX_ROUNDS: usize = MAX_ROUNDS;

/// The bound on pages one `list_*` call follows (1,000).
#[doc(hidden)]
#[deprecated(note = "use `ClientLimits::default().max_list_pages`")]
pub const MAX_LIST_PAGES: usize = LIST_PAGES;

/// The default bound on the total time of one auto-fulfilled request
/// (5 min).
#[doc(hidden)]
#[deprecated(note = "use `ClientLimits::default().max_duration`")]
pub const DEFAULT_MAX_DURATION: Duration = MAX_DURATION;

pub(super) enum Target {
    Http(String),
    Stdio { command: String, args: Vec<String> },
}

impl Target {
    /// How errors name the server.
    fn describe(&self) -> String {
        match self {
            Self::Http(url) => url.clone(),
            Self::Stdio { command, .. } => format!("the server {command:?}"),
        }
    }
}

/// Configures a [`Client`]: its transport, identity, handlers and bounds.
pub struct ClientBuilder {
    target: Target,
    client_info: Implementation,
    pub(super) handlers: Handlers,
    limits: ClientLimits,
    era: Option<Era>,
    headers: Vec<(String, String)>,
    on_notification: Option<NotificationHandler>,
    tap: Option<MessageTap>,
    #[cfg(feature = "tasks")]
    pub(super) tasks: bool,
    oauth: Option<super::auth::OAuth>,
}

impl ClientBuilder {
    pub(super) fn new(target: Target) -> Self {
        Self {
            target,
            client_info: Implementation::new("mcp-runtime-client", env!("CARGO_PKG_VERSION")),
            handlers: Handlers::default(),
            limits: ClientLimits::default(),
            era: None,
            headers: Vec::new(),
            on_notification: None,
            tap: None,
            #[cfg(feature = "tasks")]
            tasks: false,
            oauth: None,
        }
    }

    /// Sets the `clientInfo` sent with every request.
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.client_info = info;
        self
    }

    /// Speaks `era` only, without probing: [`Era::Modern`] fails to
    /// connect to a 2025-era server, [`Era::Legacy`] opens a session with
    /// `initialize` at once. Unpinned (the default), the client tries
    /// `server/discover` and falls back to `initialize`.
    pub fn pin_era(mut self, era: Era) -> Self {
        self.era = Some(era);
        self
    }

    /// Adds a header to every HTTP request (for instance an API key);
    /// ignored over stdio.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Signs in with OAuth when the server asks (a 401 with
    /// `WWW-Authenticate`), in either era; ignored over stdio. See
    /// [`super::auth`].
    #[cfg(feature = "auth")]
    pub fn oauth(mut self, oauth: super::auth::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Calls `f` with every notification the server sends (progress and
    /// log messages, list and resource changes, finished URL steps).
    ///
    /// `f` runs on the task that reads the connection: keep it short, and
    /// hand longer work to a channel or a task of its own.
    pub fn on_notification<F>(mut self, f: F) -> Self
    where
        F: Fn(ServerNotification) + Send + Sync + 'static,
    {
        self.on_notification = Some(Arc::new(f));
        self
    }

    /// Calls `f` with every message sent to the server and received from
    /// it, as JSON (for logs and debugging: `mcp --verbose` uses it).
    pub fn on_message<F>(mut self, f: F) -> Self
    where
        F: Fn(Direction, &Value) + Send + Sync + 'static,
    {
        self.tap = Some(Arc::new(f));
        self
    }

    /// Sets every limit at once (see [`ClientLimits`] for each and its
    /// default).
    pub fn limits(mut self, limits: ClientLimits) -> Self {
        self.limits = limits;
        self.limits.max_list_pages = limits.max_list_pages.max(1);
        self
    }

    /// The limits the client will apply: the defaults, changed by
    /// [`Self::limits`] and the setters of one limit.
    pub fn current_limits(&self) -> &ClientLimits {
        &self.limits
    }

    /// Bounds the `input_required` rounds fulfilled per request
    /// ([`ClientLimits::max_rounds`], default 10).
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.limits.max_rounds = rounds;
        self
    }

    /// Bounds the total time of one auto-fulfilled request
    /// ([`ClientLimits::max_duration`], default 5 min).
    pub fn max_duration(mut self, limit: Duration) -> Self {
        self.limits.max_duration = limit;
        self
    }

    /// Bounds the wait for each response
    /// ([`ClientLimits::request_timeout`], default 2 min).
    pub fn request_timeout(mut self, limit: Duration) -> Self {
        self.limits.request_timeout = limit;
        self
    }

    /// Mutable access to the handlers; the `on_*` methods are shorthands.
    pub fn handlers_mut(&mut self) -> &mut Handlers {
        &mut self.handlers
    }

    /// Connects: builds the HTTP client or spawns the stdio server (which
    /// must happen inside a Tokio runtime), then finds the era and opens
    /// the conversation (`server/discover`, or `initialize` for a 2025-era
    /// server). [`Client::era`] and [`Client::server_capabilities`] tell
    /// what was negotiated.
    pub async fn connect(self) -> Result<Client, ClientError> {
        #[cfg(feature = "tasks")]
        let capabilities = super::tasks::declared(self.handlers.capabilities(), self.tasks);
        // Without the `tasks` feature the extension is never declared.
        #[cfg(not(feature = "tasks"))]
        let capabilities = self.handlers.capabilities();
        let handlers = self.handlers.clone();
        let (router, replies) =
            Router::new(self.handlers, self.on_notification, self.tap, &self.limits);
        let target = self.target.describe();
        let wire = match self.target {
            Target::Http(url) => {
                let authorizer = match self.oauth {
                    Some(oauth) => Some(Arc::new(super::auth::Authorizer::new(
                        oauth,
                        &url,
                        self.limits.connect_timeout,
                    )?)),
                    None => None,
                };
                Wire::Http(Arc::new(
                    HttpWire::new(
                        url,
                        self.headers,
                        self.limits.connect_timeout,
                        self.limits.max_message_bytes,
                        self.limits.request_timeout,
                    )?
                    .with_authorizer(authorizer),
                ))
            }
            Target::Stdio { command, args } => Wire::Stdio(Arc::new(StdioWire::spawn(
                &command,
                &args,
                Arc::clone(&router),
                self.limits.max_message_bytes,
            )?)),
        };
        let client = Client {
            target,
            background: super::Background::start(&wire, &router, replies),
            wire,
            router,
            negotiated: std::sync::RwLock::new(Negotiated::unknown()),
            capabilities,
            handlers,
            client_info: self.client_info,
            limits: self.limits,
            next_id: Arc::new(AtomicI64::new(1)),
            param_headers: Default::default(),
            lists: Default::default(),
            log_level: Default::default(),
        };
        client.negotiate(self.era).await?;
        Ok(client)
    }
}
