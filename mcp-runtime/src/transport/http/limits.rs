//! The bounds of the HTTP transport: how long a peer may take, how much it
//! may send, how many connections and sessions it may hold. [`HttpLimits`]
//! holds them all with their defaults, set at once with
//! [`super::HttpTransport::limits`] or one by one with its setters;
//! `docs/deploying.md` lists them.

use std::time::Duration;

/// The largest request body accepted by default: 4 MiB.
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// The time a request head may take by default: 30 s.
const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// The time one write may wait for the peer by default: 30 s.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// The time a request body may take by default: 30 s.
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// How much of a refused body is read and discarded by default: 64 MiB.
const DRAIN_BYTES: usize = 64 * 1024 * 1024;
/// How long the discarding may take by default: 10 s.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// The most 2025-era sessions open at once by default: 10,000.
const MAX_SESSIONS: usize = 10_000;
/// How long a 2025-era session may sit idle by default: 30 min.
const SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Connections served at once when the file-descriptor limit cannot be
/// read.
const FALLBACK_MAX_CONNECTIONS: usize = 1024;

/// The bounds of an [`HttpTransport`](super::HttpTransport): how much a
/// peer may send, how long it may take, how many connections and 2025-era
/// sessions it may hold. Each field states its default, which
/// [`HttpLimits::default`] holds.
///
/// Set them all at once with [`HttpTransport::limits`](super::HttpTransport::limits),
/// starting from the defaults, or one at a time with the transport's
/// setters (`max_body_bytes`, `body_timeout`, ...), which write into the
/// same settings; [`HttpTransport::current_limits`](super::HttpTransport::current_limits)
/// reads them back.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::server::Server;
/// use mcp_runtime::transport::http::{HttpLimits, HttpTransport};
///
/// # fn build() -> Result<(), Box<dyn std::error::Error>> {
/// let mut limits = HttpLimits::default();
/// limits.max_body_bytes = 1024 * 1024;
/// limits.session_idle_timeout = Duration::from_secs(10 * 60);
/// let server = Server::builder("limited", "1.0.0").build()?;
/// let transport = HttpTransport::new(server).limits(limits);
/// assert_eq!(transport.current_limits().max_body_bytes, 1024 * 1024);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpLimits {
    /// The largest request body accepted, in bytes; a larger one is
    /// answered HTTP 413 and its connection closed. Default: 4 MiB.
    pub max_body_bytes: usize,
    /// How long a request body may take to arrive whole, counted from the
    /// end of its head. A slower body is answered HTTP 408, its connection
    /// closed and what had arrived freed. Default: 30 s.
    pub body_timeout: Duration,
    /// How long a connection may take to send the head of a request,
    /// counted from when the server starts waiting for it. It covers a
    /// connection that sends nothing, one that sends half a head, and a
    /// kept-alive connection idle between requests (so it is also how
    /// long an idle connection is kept): each is closed when it runs out.
    /// A response being streamed is not affected. Applies to
    /// [`HttpTransport::bind`](super::HttpTransport::bind), not to an
    /// embedded router. Default: 30 s.
    pub header_timeout: Duration,
    /// How long one write may wait for the peer to take it. A peer that
    /// stops reading, so that its answers pile up, is disconnected; time
    /// between writes (an event stream waiting for its next event) does
    /// not count. Applies to [`HttpTransport::bind`](super::HttpTransport::bind),
    /// not to an embedded router. Default: 30 s.
    pub write_timeout: Duration,
    /// How much of a body refused with 413 is still read and discarded,
    /// so that a client that writes its whole body before it reads (as
    /// many simple clients do) reads the 413 rather than a reset
    /// connection. Past it the connection is closed; 0 closes at once.
    /// Default: 64 MiB.
    pub drain_bytes: usize,
    /// How long the discarding of a refused body may take; past it the
    /// connection is closed. Default: 10 s.
    pub drain_timeout: Duration,
    /// The most connections served at once; further connections wait in
    /// the listen queue until one closes. At least 1 (0 is taken as 1).
    /// Applies to [`HttpTransport::bind`](super::HttpTransport::bind), not
    /// to an embedded router. Default: three quarters of the process's
    /// soft limit on open files (the rest is left for the listener, logs,
    /// Redis and the handlers' own files), at least 32 and at most 65,536;
    /// 1,024 where the limit cannot be read.
    pub max_connections: usize,
    /// The most 2025-era sessions open at once. When they are all open, a
    /// new one ends the session idle the longest; if none is idle,
    /// `initialize` is refused. At least 1 (0 is taken as 1). An idle
    /// session holds a few kilobytes, so the default holds tens of
    /// megabytes at most. Default: 10,000.
    pub max_sessions: usize,
    /// How long a 2025-era session may sit idle (no request running, no
    /// stream open) before it ends; its client then gets 404 and opens a
    /// new one. Default: 30 min.
    pub session_idle_timeout: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            max_body_bytes: MAX_BODY_BYTES,
            body_timeout: BODY_TIMEOUT,
            header_timeout: HEADER_TIMEOUT,
            write_timeout: WRITE_TIMEOUT,
            drain_bytes: DRAIN_BYTES,
            drain_timeout: DRAIN_TIMEOUT,
            max_connections: max_connections_for_open_files(),
            max_sessions: MAX_SESSIONS,
            session_idle_timeout: SESSION_IDLE_TIMEOUT,
        }
    }
}

impl HttpLimits {
    /// The limits as applied: the counts that must be at least 1 are.
    pub(super) fn normalized(mut self) -> Self {
        self.max_connections = self.max_connections.max(1);
        self.max_sessions = self.max_sessions.max(1);
        self
    }

    /// What bounds the reading of one request body.
    pub(super) fn body(&self) -> BodyLimits {
        BodyLimits {
            max_bytes: self.max_body_bytes,
            timeout: self.body_timeout,
            drain_bytes: self.drain_bytes,
            drain_timeout: self.drain_timeout,
        }
    }

    /// What bounds the connections of a bound transport.
    pub(super) fn connections(&self) -> ConnectionLimits {
        ConnectionLimits {
            header_timeout: self.header_timeout,
            write_timeout: self.write_timeout,
            max_connections: self.max_connections.max(1),
        }
    }
}

/// What bounds the reading of one request body.
#[derive(Debug, Clone, Copy)]
pub(super) struct BodyLimits {
    /// The largest body accepted (413 above).
    pub(super) max_bytes: usize,
    /// The time the whole body may take (408 after).
    pub(super) timeout: Duration,
    /// How much of a refused body is read and discarded.
    pub(super) drain_bytes: usize,
    /// How long the discarding may take.
    pub(super) drain_timeout: Duration,
}

/// What bounds the connections of a bound transport.
#[derive(Debug, Clone, Copy)]
pub(super) struct ConnectionLimits {
    /// The time a request head may take, idle time before it included.
    pub(super) header_timeout: Duration,
    /// The time one write may wait for the peer.
    pub(super) write_timeout: Duration,
    /// Connections served at once; more wait in the listen queue.
    pub(super) max_connections: usize,
}

/// The default request body limit: 4 MiB.
#[doc(hidden)]
#[deprecated(note = "use `HttpLimits::default().max_body_bytes`")]
pub const DEFAULT_MAX_BODY_BYTES: usize = MAX_BODY_BYTES;

/// The default time a connection may take to send the head of a request:
/// 30 s.
#[doc(hidden)]
#[deprecated(note = "use `HttpLimits::default().header_timeout`")]
pub const DEFAULT_HEADER_TIMEOUT: Duration = HEADER_TIMEOUT;

/// The default time a write may wait for the peer to take it: 30 s.
#[doc(hidden)]
#[deprecated(note = "use `HttpLimits::default().write_timeout`")]
pub const DEFAULT_WRITE_TIMEOUT: Duration = WRITE_TIMEOUT;

/// The default time a request body may take to arrive whole: 30 s.
#[doc(hidden)]
#[deprecated(note = "use `HttpLimits::default().body_timeout`")]
pub const DEFAULT_BODY_TIMEOUT: Duration = BODY_TIMEOUT;

/// How much of a refused body is read and discarded by default: 64 MiB.
#[doc(hidden)]
#[deprecated(note = "use `HttpLimits::default().drain_bytes`")]
pub const DEFAULT_DRAIN_BYTES: usize = DRAIN_BYTES;

/// The default time the discarding of a refused body may take: 10 s.
#[doc(hidden)]
#[deprecated(note = "use `HttpLimits::default().drain_timeout`")]
pub const DEFAULT_DRAIN_TIMEOUT: Duration = DRAIN_TIMEOUT;

/// The most 2025-era sessions open at once by default: 10,000.
#[doc(hidden)]
#[deprecated(note = "use `HttpLimits::default().max_sessions`")]
pub const DEFAULT_MAX_SESSIONS: usize = MAX_SESSIONS;

/// How long a 2025-era session may sit idle by default: 30 min.
#[doc(hidden)]
#[deprecated(note = "use `HttpLimits::default().session_idle_timeout`")]
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = SESSION_IDLE_TIMEOUT;

/// The default most connections served at once (see
/// [`HttpLimits::max_connections`]).
#[doc(hidden)]
#[deprecated(note = "use `HttpLimits::default().max_connections`")]
pub fn default_max_connections() -> usize {
    max_connections_for_open_files()
}

/// Three quarters of the process's soft limit on open files (the rest is
/// left for the listener, logs, Redis and the handlers' own files), at
/// least 32 and at most 65,536; 1,024 where the limit cannot be read.
fn max_connections_for_open_files() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| soft_open_files(&limits))
        .map_or(FALLBACK_MAX_CONNECTIONS, |soft| {
            (soft.saturating_mul(3) / 4).clamp(32, 65_536)
        })
}

/// The soft limit of the `Max open files` line of `/proc/self/limits`
/// (`None` when missing or `unlimited`).
fn soft_open_files(limits: &str) -> Option<usize> {
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_open_files_limit_is_read_from_proc_limits() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max cpu time              unlimited            unlimited            seconds   \n\
                      Max open files            256                  524288               files     \n";
        assert_eq!(soft_open_files(limits), Some(256));
        assert_eq!(
            soft_open_files("Max open files  unlimited unlimited files"),
            None
        );
        assert_eq!(soft_open_files(""), None);
    }

    #[test]
    fn the_defaults_are_the_documented_ones() {
        let limits = HttpLimits::default();
        assert_eq!(limits.max_body_bytes, 4 * 1024 * 1024);
        assert_eq!(limits.body_timeout, Duration::from_secs(30));
        assert_eq!(limits.header_timeout, Duration::from_secs(30));
        assert_eq!(limits.write_timeout, Duration::from_secs(30));
        assert_eq!(limits.drain_bytes, 64 * 1024 * 1024);
        assert_eq!(limits.drain_timeout, Duration::from_secs(10));
        assert_eq!(limits.max_connections, max_connections_for_open_files());
        assert_eq!(limits.max_sessions, 10_000);
        assert_eq!(limits.session_idle_timeout, Duration::from_secs(30 * 60));
        assert_eq!(limits.normalized(), limits);
    }

    #[test]
    fn the_counts_are_at_least_one() {
        let limits = HttpLimits {
            max_connections: 0,
            max_sessions: 0,
            ..HttpLimits::default()
        }
        .normalized();
        assert_eq!((limits.max_connections, limits.max_sessions), (1, 1));
    }

    #[test]
    fn the_default_connection_cap_stays_within_its_bounds() {
        let cap = max_connections_for_open_files();
        assert!((32..=65_536).contains(&cap), "{cap}");
    }
}
