//! Single use across a fleet: a [`ReplayGuard`] on Redis.

use std::fmt;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::{Clock, ReplayError, ReplayGuard, SystemClock};
use crate::BoxFuture;

/// The default prefix of the keys the guard writes.
pub const DEFAULT_KEY_PREFIX: &str = "mcp:request-state:";

/// The default bound on one Redis round trip, and on one connection attempt.
pub const DEFAULT_REDIS_TIMEOUT: Duration = Duration::from_secs(1);

/// A replay guard shared by every instance that points at the same Redis:
/// the first use of a state anywhere in the fleet claims it with
/// `SET key 1 NX EX <remaining lifetime>`, and every later use, on any
/// instance, is refused.
///
/// It fails closed: when Redis cannot be reached or does not answer within
/// the timeout, [`claim`](ReplayGuard::claim) returns an error and the
/// server refuses the call (`-32603`, the reason in its log). First calls,
/// which carry no state, never touch Redis.
///
/// ```no_run
/// use mcp_runtime::server::Server;
/// use mcp_runtime::state::{RedisReplayGuard, RequestStateSigner};
///
/// # fn build() -> Result<(), Box<dyn std::error::Error>> {
/// let guard = RedisReplayGuard::new("redis://127.0.0.1:6379")?;
/// let server = Server::builder("fleet", "1.0.0")
///     .request_state_signer(RequestStateSigner::new(b"a secret shared by the whole fleet!")?)
///     .replay_guard(guard)
///     .build()?;
/// # let _ = server; Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisReplayGuard {
    connection: ConnectionManager,
    prefix: String,
    clock: Arc<dyn Clock>,
}

/// A connection to the Redis at `url` that connects on first use and
/// reconnects by itself, each attempt and each command bounded by
/// `timeout`. Fails only for a malformed URL, or outside a Tokio runtime
/// (the connection's background task needs one). Every Redis-backed part
/// (`RedisReplayGuard`, `RedisTaskStore`) connects through it.
pub(crate) fn lazy_connection(url: &str, timeout: Duration) -> Result<ConnectionManager, String> {
    let client = redis::Client::open(url).map_err(|e| format!("bad Redis URL {url:?}: {e}"))?;
    if tokio::runtime::Handle::try_current().is_err() {
        // The connection manager spawns a task, which would panic.
        return Err("a Redis connection must be made inside a Tokio runtime".to_owned());
    }
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(timeout))
        .set_response_timeout(Some(timeout))
        .set_number_of_retries(1)
        .set_max_delay(timeout);
    ConnectionManager::new_lazy_with_config(client, config)
        .map_err(|e| format!("cannot set up the Redis connection: {e}"))
}

impl RedisReplayGuard {
    /// A guard on the Redis at `url` (`redis://host:port/db`), with
    /// [`DEFAULT_REDIS_TIMEOUT`]. It connects lazily, on the first claim,
    /// and reconnects by itself, so a server can start while Redis is down.
    /// Only a malformed URL, or a call outside a Tokio runtime, is an error
    /// here.
    pub fn new(url: &str) -> Result<Self, ReplayError> {
        Self::with_timeout(url, DEFAULT_REDIS_TIMEOUT)
    }

    /// Like [`new`](Self::new), with `timeout` bounding each connection
    /// attempt and each command.
    pub fn with_timeout(url: &str, timeout: Duration) -> Result<Self, ReplayError> {
        let connection = lazy_connection(url, timeout).map_err(ReplayError::Unavailable)?;
        Ok(Self {
            connection,
            prefix: DEFAULT_KEY_PREFIX.to_owned(),
            clock: Arc::new(SystemClock),
        })
    }

    /// Prefixes every key with `prefix` instead of [`DEFAULT_KEY_PREFIX`]
    /// (to share one Redis between services).
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Measures remaining lifetimes on `clock` (use the signer's clock).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Checks that Redis answers `PING`, for a readiness probe at start-up.
    pub async fn ping(&self) -> Result<(), ReplayError> {
        let mut connection = self.connection.clone();
        redis::cmd("PING")
            .query_async::<String>(&mut connection)
            .await
            .map(drop)
            .map_err(|e| ReplayError::Unavailable(format!("Redis did not answer PING: {e}")))
    }

    /// The Redis key of a fingerprint: the prefix and 64 hex digits.
    fn key(&self, fingerprint: &[u8; 32]) -> String {
        let mut key = String::with_capacity(self.prefix.len() + 64);
        key.push_str(&self.prefix);
        for byte in fingerprint {
            let _ = write!(key, "{byte:02x}");
        }
        key
    }
}

impl fmt::Debug for RedisReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisReplayGuard")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl ReplayGuard for RedisReplayGuard {
    fn claim<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        expires_at: u64,
    ) -> BoxFuture<'a, Result<bool, ReplayError>> {
        Box::pin(async move {
            // The key lives as long as the state could still verify; at
            // least a second, since `EX 0` is an error.
            let remaining = expires_at.saturating_sub(self.clock.now()).max(1);
            let mut connection = self.connection.clone();
            let reply: Option<String> = redis::cmd("SET")
                .arg(self.key(fingerprint))
                .arg(1)
                .arg("NX")
                .arg("EX")
                .arg(remaining)
                .query_async(&mut connection)
                .await
                .map_err(|e| ReplayError::Unavailable(format!("Redis SET NX failed: {e}")))?;
            Ok(reply.is_some())
        })
    }
}
