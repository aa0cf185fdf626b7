//! Task records shared by a fleet: a [`TaskStore`] on Redis.

use std::fmt;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use redis::RedisError;
use redis::aio::ConnectionManager;

use super::record::{TaskRecord, now_ms};
use super::store::{TaskStore, TaskStoreError};
use crate::BoxFuture;
use crate::state::{DEFAULT_REDIS_TIMEOUT, Script, lazy_connection};

/// The default prefix of the keys a [`RedisTaskStore`] writes.
#[doc(hidden)]
pub const DEFAULT_TASK_KEY_PREFIX: &str = "mcp:tasks:";

/// The latest expiry written to Redis, in milliseconds since the Unix epoch
/// (2^53, some 285,000 years from 1970): a valid `PEXPIREAT` time, and a
/// sorted-set score that is an exact integer.
const MAX_EXPIRY_MS: u64 = 1 << 53;

/// Stores a new record. `KEYS[1]`: the record's hash; `KEYS[2]`: its
/// owner's live set (unfinished task ids scored by expiry). `ARGV`: now,
/// `max_live`, terminal (`1` or `0`), version, JSON, expiry, id.
/// Returns `{0, 0}` when stored, `{1, live}` when the owner is full,
/// `{2, 0}` when a record with this id exists.
const CREATE_SCRIPT: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
local live = redis.call('ZCARD', KEYS[2])
if ARGV[3] ~= '1' and live >= tonumber(ARGV[2]) then
  return {1, live}
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {2, 0}
end
redis.call('HSET', KEYS[1], 'v', ARGV[4], 'd', ARGV[5])
redis.call('PEXPIREAT', KEYS[1], ARGV[6])
if ARGV[3] ~= '1' then
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[7])
  local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  if tonumber(last[2]) <= tonumber(ARGV[6]) then
    redis.call('PEXPIREAT', KEYS[2], ARGV[6])
  end
end
return {0, 0}
";

/// Replaces a record if its stored version is the expected one.
/// `KEYS[1]`: the record's hash; `KEYS[2]`: its owner's live set. `ARGV`:
/// expected version, new version, JSON, expiry, terminal (`1` or `0`), id.
/// Returns 1 when replaced, 0 when the version differs or the record is
/// gone.
const REPLACE_SCRIPT: &str = r"
local stored = redis.call('HGET', KEYS[1], 'v')
if stored ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
if ARGV[5] == '1' then
  redis.call('ZREM', KEYS[2], ARGV[6])
end
return 1
";

/// What [`CREATE_SCRIPT`] answers when the record was stored.
const CREATED: i64 = 0;
/// What [`CREATE_SCRIPT`] answers when the owner is full.
const OWNER_FULL: i64 = 1;
/// What [`CREATE_SCRIPT`] answers when the id is taken.
const ID_TAKEN: i64 = 2;

/// Task records in Redis, shared by every instance that points at the same
/// Redis: any instance can read, answer, cancel and run the next round of a
/// task another instance created.
///
/// Each record is a hash at `{prefix}task:{id}` holding its version (`v`)
/// and its JSON (`d`), which Redis forgets at the record's
/// [`expires_ms`](TaskRecord::expires_ms). Each owner's unfinished tasks
/// are a sorted set, scored by expiry, so that the bound on them holds
/// across the fleet. Creating a record and replacing one are each a single
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

    /// The key of `owner`'s live set: `{prefix}live:` and the owner's bytes
    /// in hex, so that no owner can name another key.
    fn live_key(&self, owner: &str) -> String {
        let mut key = String::with_capacity(self.prefix.len() + 5 + 2 * owner.len());
        key.push_str(&self.prefix);
        key.push_str("live:");
        for byte in owner.as_bytes() {
            let _ = write!(key, "{byte:02x}");
        }
        key
    }
}

impl fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
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

/// `1` for a terminal status, `0` otherwise.
fn terminal_flag(record: &TaskRecord) -> &'static str {
    if record.status.is_terminal() {
        "1"
    } else {
        "0"
    }
}

impl TaskStore for RedisTaskStore {
    fn create<'a>(
        &'a self,
        record: &'a TaskRecord,
        max_live: usize,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let (json, expires) = encode(record)?;
            let record_key = self.record_key(&record.id);
            let live_key = self.live_key(&record.owner);
            let now = now_ms().to_string();
            let max_live = max_live.to_string();
            let version = record.version.to_string();
            let mut connection = self.connection.clone();
            let (code, live): (i64, i64) = self
                .scripts
                .create
                .run(
                    &mut connection,
                    &[&record_key, &live_key],
                    &[
                        &now,
                        &max_live,
                        terminal_flag(record),
                        &version,
                        &json,
                        &expires,
                        &record.id,
                    ],
                )
                .await
                .map_err(|e| unavailable("task create", &e))?;
            match code {
                CREATED => Ok(()),
                OWNER_FULL => Err(TaskStoreError::Full(format!(
                    "the caller already has {live} unfinished tasks"
                ))),
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
            let live_key = self.live_key(&record.owner);
            let expected = expected.to_string();
            let version = record.version.to_string();
            let mut connection = self.connection.clone();
            let replaced: i64 = self
                .scripts
                .replace
                .run(
                    &mut connection,
                    &[&record_key, &live_key],
                    &[
                        &expected,
                        &version,
                        &json,
                        &expires,
                        terminal_flag(record),
                        &record.id,
                    ],
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
    async fn owners_are_hex_in_live_keys() {
        let store = RedisTaskStore::new("redis://127.0.0.1:1").unwrap();
        assert_eq!(store.live_key(""), "mcp:tasks:live:");
        assert_eq!(store.live_key("a:b"), "mcp:tasks:live:613a62");
        assert_eq!(store.record_key("x"), "mcp:tasks:task:x");
        let store = store.key_prefix("p/");
        assert_eq!(store.live_key("é"), "p/live:c3a9");
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
