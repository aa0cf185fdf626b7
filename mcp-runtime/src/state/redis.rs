//! Single use across a fleet: a [`ReplayGuard`] on Redis.

use std::fmt;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{ErrorKind, RedisError, ServerErrorKind};

use super::{Clock, ReplayError, ReplayGuard, RoundClaim, SystemClock};
use crate::BoxFuture;

/// A round's claim: the key is absent (first use: `R` and the answers'
/// digest, for the state's remaining lifetime), or holds `R<digest>` (still
/// running), `D<digest><answer>` (done), `U` (done, no answer kept) or `1`
/// (a plain claim). A claim with the digest of the first use gets the
/// answer, or waits; any other is refused.
const CLAIM_ROUND_SCRIPT: &str = r"
local kept = redis.call('GET', KEYS[1])
if not kept then
  redis.call('SET', KEYS[1], 'R' .. ARGV[1], 'EX', ARGV[2])
  return {'first'}
end
local tag = string.sub(kept, 1, 1)
if (tag ~= 'R' and tag ~= 'D') or string.sub(kept, 2, 65) ~= ARGV[1] then
  return {'refused'}
end
if tag == 'R' then
  return {'running'}
end
return {'recorded', string.sub(kept, 66)}
";

/// Records a running round's answer (`ARGV[1]`, or `U` for none when it is
/// empty), keeping the key's lifetime. 1 when the answer was kept.
const RECORD_OUTCOME_SCRIPT: &str = r"
local kept = redis.call('GET', KEYS[1])
if not kept or string.sub(kept, 1, 1) ~= 'R' then
  return 0
end
if ARGV[1] == '' then
  redis.call('SET', KEYS[1], 'U', 'KEEPTTL')
  return 0
end
redis.call('SET', KEYS[1], 'D' .. string.sub(kept, 2, 65) .. ARGV[1], 'KEEPTTL')
return 1
";

/// The prefix of the keys the guard writes by default.
const KEY_PREFIX: &str = "mcp:request-state:";

/// The default prefix of the keys the guard writes (`mcp:request-state:`).
#[doc(hidden)]
#[deprecated(
    note = "the default (`mcp:request-state:`) is stated on `RedisReplayGuard::key_prefix`; this constant goes away"
)]
pub const DEFAULT_KEY_PREFIX: &str = KEY_PREFIX;

/// The default bound on one Redis round trip, and on one connection attempt
/// (1 s), of every Redis-backed part: [`RedisReplayGuard::new`], and the
/// task store's and URL steps' `new`.
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
    scripts: Arc<[Script; 2]>,
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

/// A Lua script run with `EVALSHA`, loaded with `SCRIPT LOAD` on first use
/// and sent whole with `EVAL` when Redis no longer has it (after a restart).
pub(crate) struct Script {
    source: &'static str,
    sha: OnceLock<String>,
}

impl Script {
    pub(crate) const fn new(source: &'static str) -> Self {
        Self {
            source,
            sha: OnceLock::new(),
        }
    }

    /// Runs the script with `keys` and `args`: one round trip once loaded.
    pub(crate) async fn run<T: redis::FromRedisValue>(
        &self,
        connection: &mut ConnectionManager,
        keys: &[&str],
        args: &[&str],
    ) -> Result<T, RedisError> {
        let sha = match self.sha.get() {
            Some(sha) => sha.clone(),
            None => {
                let sha: String = redis::cmd("SCRIPT")
                    .arg("LOAD")
                    .arg(self.source)
                    .query_async(connection)
                    .await?;
                let _ = self.sha.set(sha.clone());
                sha
            }
        };
        match invocation("EVALSHA", &sha, keys, args)
            .query_async(connection)
            .await
        {
            Err(e) if e.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                // Redis forgot it (restarted, or `SCRIPT FLUSH`): `EVAL`
                // runs it and caches it again under the same SHA1.
                invocation("EVAL", self.source, keys, args)
                    .query_async(connection)
                    .await
            }
            reply => reply,
        }
    }
}

/// `EVAL`/`EVALSHA` `script` with `keys` and `args`.
fn invocation(command: &str, script: &str, keys: &[&str], args: &[&str]) -> redis::Cmd {
    let mut cmd = redis::cmd(command);
    cmd.arg(script).arg(keys.len()).arg(keys).arg(args);
    cmd
}

impl RedisReplayGuard {
    /// A guard on the Redis at `url` (`redis://host:port/db`), each
    /// connection attempt and each command bounded by 1 s (see
    /// [`Self::with_timeout`]). It connects lazily, on the first claim, and
    /// reconnects by itself, so a server can start while Redis is down.
    /// Only a malformed URL, or a call outside a Tokio runtime, is an error
    /// here.
    pub fn new(url: &str) -> Result<Self, ReplayError> {
        Self::with_timeout(url, DEFAULT_REDIS_TIMEOUT)
    }

    /// Like [`new`](Self::new), with `timeout` bounding each connection
    /// attempt and each command instead of the default 1 s. When Redis
    /// does not answer within it, the claim fails and the retry is refused
    /// (`-32603`).
    pub fn with_timeout(url: &str, timeout: Duration) -> Result<Self, ReplayError> {
        let connection = lazy_connection(url, timeout).map_err(ReplayError::Unavailable)?;
        Ok(Self {
            connection,
            prefix: KEY_PREFIX.to_owned(),
            clock: Arc::new(SystemClock),
            scripts: Arc::new([
                Script::new(CLAIM_ROUND_SCRIPT),
                Script::new(RECORD_OUTCOME_SCRIPT),
            ]),
        })
    }

    /// Prefixes every key with `prefix` instead of the default
    /// `mcp:request-state:` (to share one Redis between services).
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
        format!("{}{}", self.prefix, hex(fingerprint))
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

    fn claim_round<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        answers: &'a [u8; 32],
        expires_at: u64,
    ) -> BoxFuture<'a, Result<RoundClaim, ReplayError>> {
        Box::pin(async move {
            let remaining = expires_at.saturating_sub(self.clock.now()).max(1);
            let mut connection = self.connection.clone();
            let (key, answers) = (self.key(fingerprint), hex(answers));
            let reply: Vec<redis::Value> = self.scripts[0]
                .run(
                    &mut connection,
                    &[&key],
                    &[&answers, &remaining.to_string()],
                )
                .await
                .map_err(|e| ReplayError::Unavailable(format!("Redis claim failed: {e}")))?;
            let tag = reply
                .first()
                .and_then(|tag| redis::from_redis_value_ref::<String>(tag).ok());
            match (tag.as_deref(), reply.get(1)) {
                (Some("first"), _) => Ok(RoundClaim::First),
                (Some("running"), _) => Ok(RoundClaim::Running),
                (Some("refused"), _) => Ok(RoundClaim::Refused),
                (Some("recorded"), Some(answer)) => redis::from_redis_value_ref::<Vec<u8>>(answer)
                    .map(RoundClaim::Recorded)
                    .map_err(|e| ReplayError::Unavailable(format!("Redis answered {e}"))),
                _ => Err(ReplayError::Unavailable(format!(
                    "Redis answered the claim with {reply:?}"
                ))),
            }
        })
    }

    fn record_outcome<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        outcome: Option<&'a [u8]>,
        _expires_at: u64,
    ) -> BoxFuture<'a, Result<bool, ReplayError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            // The server's answers are JSON, hence UTF-8; anything else is
            // recorded as no answer.
            let outcome = outcome
                .and_then(|bytes| std::str::from_utf8(bytes).ok())
                .unwrap_or_default();
            let kept: i64 = self.scripts[1]
                .run(&mut connection, &[&self.key(fingerprint)], &[outcome])
                .await
                .map_err(|e| ReplayError::Unavailable(format!("Redis record failed: {e}")))?;
            Ok(kept == 1)
        })
    }
}

/// 64 lowercase hex digits.
fn hex(bytes: &[u8; 32]) -> String {
    let mut out = String::with_capacity(64);
    for byte in bytes {
        let _ = write!(out, "{byte:02x}");
    }
    out
}
