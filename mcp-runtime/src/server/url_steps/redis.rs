//! URL steps in Redis, so the web route that finishes a step may run on
//! another instance than the MCP request that opened it.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use redis::aio::ConnectionManager;

use super::{UrlStepError, UrlStepStatus, UrlStepStore};
use crate::BoxFuture;
use crate::state::{Clock, DEFAULT_REDIS_TIMEOUT, Script, SystemClock, lazy_connection};

/// The default prefix of the keys the store writes.
#[doc(hidden)]
pub const DEFAULT_URL_STEP_KEY_PREFIX: &str = "mcp:url-step:";

/// Marks the step at `KEYS[1]` done if `ARGV[1]` owns it: the value is `P`
/// (pending) or `D` (done), then the owner. 1 done, 0 unknown, -1 foreign.
const COMPLETE_SCRIPT: &str = r"
local kept = redis.call('GET', KEYS[1])
if not kept then
  return 0
end
if string.sub(kept, 2) ~= ARGV[1] then
  return -1
end
redis.call('SET', KEYS[1], 'D' .. ARGV[1], 'KEEPTTL')
return 1
";

/// URL steps shared by every instance that points at the same Redis: one
/// key per step (`<prefix><id>`, `P` or `D` and the owner), expiring with
/// the step. Fails closed: when Redis cannot answer, a step cannot be
/// opened, completed or found done.
#[derive(Clone)]
pub struct RedisUrlSteps {
    connection: ConnectionManager,
    prefix: String,
    clock: Arc<dyn Clock>,
    complete: Arc<Script>,
}

impl fmt::Debug for RedisUrlSteps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisUrlSteps")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisUrlSteps {
    /// A store on the Redis at `url`, each command bounded by 1 s; it connects lazily and reconnects by
    /// itself. Only a malformed URL, or a call outside a Tokio runtime, is
    /// an error here.
    pub fn new(url: &str) -> Result<Self, UrlStepError> {
        Self::with_timeout(url, DEFAULT_REDIS_TIMEOUT)
    }

    /// Like [`new`](Self::new), with `timeout` bounding each connection
    /// attempt and each command.
    pub fn with_timeout(url: &str, timeout: Duration) -> Result<Self, UrlStepError> {
        Ok(Self {
            connection: lazy_connection(url, timeout).map_err(UrlStepError::Unavailable)?,
            prefix: DEFAULT_URL_STEP_KEY_PREFIX.to_owned(),
            clock: Arc::new(SystemClock),
            complete: Arc::new(Script::new(COMPLETE_SCRIPT)),
        })
    }

    /// Prefixes every key with `prefix` instead of `"mcp:url-step:"`.
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Measures remaining lifetimes on `clock`.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }
}

fn unavailable(error: &redis::RedisError) -> UrlStepError {
    UrlStepError::Unavailable(format!("Redis: {error}"))
}

impl UrlStepStore for RedisUrlSteps {
    fn open<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        expires_at: u64,
    ) -> BoxFuture<'a, Result<(), UrlStepError>> {
        Box::pin(async move {
            let remaining = expires_at.saturating_sub(self.clock.now()).max(1);
            let mut connection = self.connection.clone();
            redis::cmd("SET")
                .arg(self.key(id))
                .arg(format!("P{owner}"))
                .arg("EX")
                .arg(remaining)
                .query_async::<()>(&mut connection)
                .await
                .map_err(|e| unavailable(&e))
        })
    }

    fn complete<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), UrlStepError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let done: i64 = self
                .complete
                .run(&mut connection, &[&self.key(id)], &[owner])
                .await
                .map_err(|e| unavailable(&e))?;
            match done {
                1 => Ok(()),
                -1 => Err(UrlStepError::Foreign),
                _ => Err(UrlStepError::Unknown),
            }
        })
    }

    fn status<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<UrlStepStatus, UrlStepError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let kept: Option<String> = redis::cmd("GET")
                .arg(self.key(id))
                .query_async(&mut connection)
                .await
                .map_err(|e| unavailable(&e))?;
            let Some(kept) = kept else {
                return Err(UrlStepError::Unknown);
            };
            match (kept.get(..1), kept.get(1..)) {
                (_, Some(holder)) if holder != owner => Err(UrlStepError::Foreign),
                (Some("D"), _) => Ok(UrlStepStatus::Completed),
                (Some("P"), _) => Ok(UrlStepStatus::Pending),
                _ => Err(UrlStepError::Unavailable(
                    "a URL step's key holds something else".to_owned(),
                )),
            }
        })
    }
}
