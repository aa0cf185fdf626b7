//! The bounds of the HTTP transport: how long a peer may take, how much it
//! may send, how many connections it may hold. Each has a default here and
//! a setter on [`super::HttpTransport`]; `docs/deploying.md` lists them.

use std::time::Duration;

/// The default request body limit: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The default time a connection may take to send the head of a request,
/// counted from when the server starts waiting for it: 30 s. Between
/// requests on a kept-alive connection the wait counts too, so this is
/// also how long an idle connection is kept.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// The default time a write may wait for the peer to take it: 30 s. A peer
/// that stops reading (its answers pile up) is then disconnected; idle time
/// between writes, as on an event stream, does not count.
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// The default time a request body may take to arrive whole, counted from
/// the end of its head: 30 s.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// By default, after answering 413, up to 64 MiB of the refused body are
/// read and discarded, so that a client that writes its whole body before
/// reading (as many simple clients do) reads the 413 rather than a reset.
pub const DEFAULT_DRAIN_BYTES: usize = 64 * 1024 * 1024;

/// The default time the discarding of a refused body may take: 10 s.
pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections served at once when the file-descriptor limit cannot be
/// read.
const FALLBACK_MAX_CONNECTIONS: usize = 1024;

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

impl Default for BodyLimits {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_MAX_BODY_BYTES,
            timeout: DEFAULT_BODY_TIMEOUT,
            drain_bytes: DEFAULT_DRAIN_BYTES,
            drain_timeout: DEFAULT_DRAIN_TIMEOUT,
        }
    }
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

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            max_connections: default_max_connections(),
        }
    }
}

/// The most 2025-era sessions open at once by default. An idle session
/// holds a few kilobytes (the client's capabilities and description), so
/// this many hold tens of megabytes at most.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;

/// How long a 2025-era session may sit idle by default (no request
/// running, no stream open) before it ends.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// What bounds the 2025-era sessions of an endpoint.
#[derive(Debug, Clone, Copy)]
pub(super) struct SessionLimits {
    /// Sessions open at once.
    pub(super) max_sessions: usize,
    /// Idle time before a session ends.
    pub(super) idle_timeout: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            max_sessions: DEFAULT_MAX_SESSIONS,
            idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
        }
    }
}

/// Three quarters of the process's soft limit on open files (the rest is
/// left for the listener, logs, Redis and the handlers' own files), at
/// least 32 and at most 65,536; 1,024 where the limit cannot be read.
pub fn default_max_connections() -> usize {
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
    fn the_default_connection_cap_stays_within_its_bounds() {
        let cap = default_max_connections();
        assert!((32..=65_536).contains(&cap), "{cap}");
    }
}
