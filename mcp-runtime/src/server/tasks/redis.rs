//! Task records shared by a fleet: a [`TaskStore`] on Redis.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use redis::RedisError;
use redis::aio::ConnectionManager;

use super::record::{TaskRecord, now_ms};
use super::store::{Allowance, TaskStore, TaskStoreError};
use crate::BoxFuture;
use crate::state::{DEFAULT_REDIS_TIMEOUT, Script, lazy_connection};

/// The default prefix of the keys a [`RedisTaskStore`] writes.
#[doc(hidden)]
pub const DEFAULT_TASK_KEY_PREFIX: &str = "mcp:tasks:";

/// The latest expiry written to Redis, in milliseconds since the Unix epoch
/// (2^53, some 285,000 years from 1970): a valid `PEXPIREAT` time, and a
/// sorted-set score that is an exact integer.
const MAX_EXPIRY_MS: u64 = 1 << 53;

/// Stores a new record. `KEYS[1]`: the record's hash; `KEYS[2]`: the
/// records its allowance holds (ids scored by expiry); `KEYS[3]`: the
/// records unauthenticated clients hold together. `ARGV`: now, the
/// allowance's max, the shared max (`0` for none), version, JSON, expiry,
/// id. Returns `{0, 0}` when stored, `{1, held}` when the allowance is
/// used up, `{2, 0}` when a record with this id exists, `{3, held}` when
/// the shared bound is reached.
const CREATE_SCRIPT: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
local held = redis.call('ZCARD', KEYS[2])
if held >= tonumber(ARGV[2]) then
  return {1, held}
end
local shared = tonumber(ARGV[3])
if shared > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
  local all = redis.call('ZCARD', KEYS[3])
  if all >= shared then
    return {3, all}
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {2, 0}
end
redis.call('HSET', KEYS[1], 'v', ARGV[4], 'd', ARGV[5])
redis.call('PEXPIREAT', KEYS[1], ARGV[6])
local sets = {KEYS[2]}
if shared > 0 then
  sets[2] = KEYS[3]
end
for _, set in ipairs(sets) do
  redis.call('ZADD', set, ARGV[6], ARGV[7])
  local last = redis.call('ZRANGE', set, -1, -1, 'WITHSCORES')
  if tonumber(last[2]) <= tonumber(ARGV[6]) then
    redis.call('PEXPIREAT', set, ARGV[6])
  end
end
return {0, 0}
";

/// Replaces a record if its stored version is the expected one.
/// `KEYS[1]`: the record's hash. `ARGV`: expected version, new version,
/// JSON, expiry. Returns 1 when replaced, 0 when the version differs or
/// the record is gone. A finished record still counts toward its
/// allowance, until it expires.
const REPLACE_SCRIPT: &str = r"
local stored = redis.call('HGET', KEYS[1], 'v')
if stored ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
return 1
";

/// What [`CREATE_SCRIPT`] answers when the record was stored.
const CREATED: i64 = 0;
/// What [`CREATE_SCRIPT`] answers when the allowance is used up.
const OVER_ALLOWANCE: i64 = 1;
/// What [`CREATE_SCRIPT`] answers when the id is taken.
const ID_TAKEN: i64 = 2;
/// What [`CREATE_SCRIPT`] answers when the shared bound is reached.
const OVER_SHARED: i64 = 3;

/// Task records in Redis, shared by every instance that points at the same
/// Redis: any instance can read, answer, cancel and run the next round of a
/// task another instance created.
///
/// Each record is a hash at `{prefix}task:{id}` holding its version (`v`)
/// and its JSON (`d`), which Redis forgets at the record's
/// [`expires_ms`](TaskRecord::expires_ms). The records each
/// [`Allowance`] holds are a sorted set at `{prefix}held:{key in hex}`,
/// and those of all unauthenticated clients one at `{prefix}anonymous`,
/// each scored by expiry, so that the bounds hold across the fleet and a
/// record counts, finished or not, until it expires. Creating a record and replacing one are each a single
/// Lua script, so concurrent changes from several instances never lose one:
/// [`replace`](TaskStore::replace) is a compare-and-swap on the version.
///
/// It connects lazily and reconnects by itself, so a server can start while
/// Redis is down; while Redis cannot be reached or does not answer within
/// the timeout, every call fails with [`TaskStoreError::Unavailable`].
///
/// It is made inside a Tokio runtime, like the server it serves.
///
/// ```no_run
/// use mcp_runtime::server::Server;
/// use mcp_runtime::server::tasks::{RedisTaskStore, Tasks};
///
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error>> {
///     let store = RedisTaskStore::new("redis://127.0.0.1:6379")?;
///     let server = Server::builder("fleet", "1.0.0")
///         .tasks(Tasks::new(store))
///         .build()?;
///     # let _ = server;
///     Ok(())
/// }
/// ```
#[derive(Clone)]
pub struct RedisTaskStore {
    connection: ConnectionManager,
    prefix: String,
    scripts: Arc<Scripts>,
}

/// The two scripts, each with the SHA1 Redis gave it once loaded.
struct Scripts {
    create: Script,
    replace: Script,
}

impl RedisTaskStore {
    /// A store on the Redis at `url` (`redis://host:port/db`), each command
    /// bounded by 1 s. It connects lazily, on the first call,
    /// and reconnects by itself, so a server can start while Redis is down.
    /// Only a malformed URL, or a call outside a Tokio runtime (the
    /// connection's background task needs one), is an error here.
    pub fn new(url: &str) -> Result<Self, TaskStoreError> {
        Self::with_timeout(url, DEFAULT_REDIS_TIMEOUT)
    }

    /// Like [`new`](Self::new), with `timeout` bounding each connection
    /// attempt and each command.
    pub fn with_timeout(url: &str, timeout: Duration) -> Result<Self, TaskStoreError> {
        let connection = lazy_connection(url, timeout).map_err(TaskStoreError::Unavailable)?;
        Ok(Self {
            connection,
            prefix: DEFAULT_TASK_KEY_PREFIX.to_owned(),
            scripts: Arc::new(Scripts {
                create: Script::new(CREATE_SCRIPT),
                replace: Script::new(REPLACE_SCRIPT),
            }),
        })
    }

    /// Prefixes every key with `prefix` instead of `"mcp:tasks:"` (to share one Redis between services).
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Checks that Redis answers `PING`, for a readiness probe at start-up.
    pub async fn ping(&self) -> Result<(), TaskStoreError> {
        let mut connection = self.connection.clone();
        redis::cmd("PING")
            .query_async::<String>(&mut connection)
            .await
            .map(drop)
            .map_err(|e| unavailable("PING", &e))
    }

    /// The key of the record of `id`: `{prefix}task:{id}`.
    fn record_key(&self, id: &str) -> String {
        format!("{}task:{id}", self.prefix)
    }

    /// The key of the set of records an allowance holds: `{prefix}held:`
    /// and the allowance's key in hex, so that no client can name another
    /// key.
    fn held_key(&self, allowance: &str) -> String {
        let mut key = String::with_capacity(self.prefix.len() + 5 + 2 * allowance.len());
        key.push_str(&self.prefix);
        key.push_str("held:");
        crate::hex::push_hex(&mut key, allowance.as_bytes());
        key
    }

    /// The key of the set of records unauthenticated clients hold.
    fn anonymous_key(&self) -> String {
        format!("{}anonymous", self.prefix)
    }
}

impl fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// A count Redis answered, as a `usize`.
fn count(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// A Redis failure, as the store reports it.
fn unavailable(what: &str, error: &RedisError) -> TaskStoreError {
    TaskStoreError::Unavailable(format!("Redis {what} failed: {error}"))
}

/// What a record is written as: its JSON and its expiry (bounded, see
/// [`MAX_EXPIRY_MS`]), both as Redis arguments.
fn encode(record: &TaskRecord) -> Result<(String, String), TaskStoreError> {
    let json = serde_json::to_string(record).map_err(|e| {
        TaskStoreError::Unavailable(format!("could not serialise task {:?}: {e}", record.id))
    })?;
    let expires = record.expires_ms().min(MAX_EXPIRY_MS);
    Ok((json, expires.to_string()))
}

impl TaskStore for RedisTaskStore {
    fn create<'a>(
        &'a self,
        record: &'a TaskRecord,
        allowance: &'a Allowance,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let (json, expires) = encode(record)?;
            let record_key = self.record_key(&record.id);
            let held_key = self.held_key(&allowance.key);
            let anonymous_key = self.anonymous_key();
            let now = now_ms().to_string();
            let max = allowance.max.to_string();
            // `0` is no shared bound; a shared bound is at least 1.
            let shared = allowance.shared_max.map_or(0, |max| max.max(1)).to_string();
            let version = record.version.to_string();
            let mut connection = self.connection.clone();
            let (code, held): (i64, i64) = self
                .scripts
                .create
                .run(
                    &mut connection,
                    &[&record_key, &held_key, &anonymous_key],
                    &[&now, &max, &shared, &version, &json, &expires, &record.id],
                )
                .await
                .map_err(|e| unavailable("task create", &e))?;
            match code {
                CREATED => Ok(()),
                OVER_ALLOWANCE => Err(TaskStoreError::OverAllowance(count(held))),
                OVER_SHARED => Err(TaskStoreError::OverShared(count(held))),
                ID_TAKEN => Err(TaskStoreError::Unavailable(
                    "a task with this id exists".to_owned(),
                )),
                other => Err(TaskStoreError::Unavailable(format!(
                    "Redis answered the task create with an unknown code {other}"
                ))),
            }
        })
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let json: Option<String> = redis::cmd("HGET")
                .arg(self.record_key(id))
                .arg("d")
                .query_async(&mut connection)
                .await
                .map_err(|e| unavailable("HGET", &e))?;
            let Some(json) = json else {
                return Ok(None);
            };
            let record: TaskRecord = serde_json::from_str(&json).map_err(|e| {
                TaskStoreError::Unavailable(format!("the stored task {id:?} does not parse: {e}"))
            })?;
            if record.id != id {
                return Err(TaskStoreError::Unavailable(format!(
                    "the record stored for task {id:?} is task {:?}",
                    record.id
                )));
            }
            // Redis forgets it at its expiry by its own clock; ours decides.
            if record.expires_ms() <= now_ms() {
                return Ok(None);
            }
            Ok(Some(record))
        })
    }

    fn replace<'a>(
        &'a self,
        record: &'a TaskRecord,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let Some(expected) = record.version.checked_sub(1) else {
                // No stored version precedes 0.
                return Ok(false);
            };
            let (json, expires) = encode(record)?;
            let record_key = self.record_key(&record.id);
            let expected = expected.to_string();
            let version = record.version.to_string();
            let mut connection = self.connection.clone();
            let replaced: i64 = self
                .scripts
                .replace
                .run(
                    &mut connection,
                    &[&record_key],
                    &[&expected, &version, &json, &expires],
                )
                .await
                .map_err(|e| unavailable("task replace", &e))?;
            Ok(replaced == 1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn allowance_keys_are_hex() {
        let store = RedisTaskStore::new("redis://127.0.0.1:1").unwrap();
        assert_eq!(store.held_key(""), "mcp:tasks:held:");
        assert_eq!(store.held_key("a:b"), "mcp:tasks:held:613a62");
        assert_eq!(store.record_key("x"), "mcp:tasks:task:x");
        assert_eq!(store.anonymous_key(), "mcp:tasks:anonymous");
        let store = store.key_prefix("p/");
        assert_eq!(store.held_key("é"), "p/held:c3a9");
    }

    #[tokio::test]
    async fn debug_shows_no_url() {
        let store = RedisTaskStore::new("redis://user:hunter2@127.0.0.1:1").unwrap();
        let shown = format!("{store:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(RedisTaskStore::new("not a url").is_err());
    }

    #[test]
    fn outside_a_runtime_is_an_error_not_a_panic() {
        assert!(matches!(
            RedisTaskStore::new("redis://127.0.0.1:1"),
            Err(TaskStoreError::Unavailable(_))
        ));
    }
}
