//! Single use across a fleet: a [`ReplayGuard`] on Redis.

use std::fmt;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{
    ErrorKind, FromRedisValue, RedisError, RedisResult, RedisWrite as _, ServerErrorKind, Value,
};

use super::{Clock, ReplayError, ReplayGuard, RoundClaim, SystemClock};
use crate::BoxFuture;
use crate::hex::digest_hex;

mod pipeline;

use pipeline::Pipeline;

/// A round's claim: the key is absent (first use: `R` and the answers'
/// digest, for the state's remaining lifetime), or holds `R<digest>` (still
/// running), `D<digest><answer>` (done), `U` (done, no answer kept) or `1`
/// (a plain claim). It answers what the key held before, nil on the first
/// use, as `SET .. NX GET` does on Redis 7; [`read_claim`] reads both.
/// Only for a Redis older than 7.0, which refuses `NX` with `GET`.
const CLAIM_ROUND_SCRIPT: &str = r"
local kept = redis.call('GET', KEYS[1])
if not kept then
  redis.call('SET', KEYS[1], 'R' .. ARGV[1], 'EX', ARGV[2])
end
return kept
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
/// the first use of a state anywhere in the fleet claims it, and every later
/// use, on any instance, is refused (or, with the outcome record, gets the
/// first use's answer).
///
/// A retry costs one Redis command while it waits: the claim is one
/// `SET key R<answers digest> NX GET EX <remaining lifetime>` (a Lua script
/// on a Redis older than 7.0), and the round's answer is recorded after it
/// is sent, without the round waiting for it, by one
/// `SET key D<answers digest><answer> XX KEEPTTL` (Redis 6.0 or later). A
/// duplicate that arrives before the record lands waits for it, as for a
/// round still running.
///
/// The claims and records of concurrent requests share round trips: the
/// guard sends them in pipelines, each with everything queued while the
/// one before was out and everything queued by the requests that ran in
/// the same pass of the scheduler (at most 1024 queued; past that, a
/// request waits for room, within the timeout). A claim still queued when
/// its request stops waiting is dropped, never sent.
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
    /// Claims and records, pipelined with other requests'.
    pipeline: Pipeline,
    prefix: String,
    clock: Arc<dyn Clock>,
    /// The claim of a Redis older than 7.0 ([`CLAIM_ROUND_SCRIPT`]).
    claim_script: Arc<Script>,
    /// Whether the claim is one `SET .. NX GET` (Redis 7 and later); false
    /// once Redis refused it, and the claim is then a script.
    native_claim: Arc<AtomicBool>,
}

/// A connection to the Redis at `url` that connects on first use and
/// reconnects by itself, each attempt and each command bounded by
/// `timeout`. Fails only for a malformed URL, or outside a Tokio runtime
/// (the connection's background task needs one). Every Redis-backed part
/// (`RedisReplayGuard`, `RedisTaskStore`) connects through it.
pub(crate) fn lazy_connection(url: &str, timeout: Duration) -> Result<ConnectionManager, String> {
    let client = client(url)?;
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

/// A client of the Redis at `url` whose commands go out as soon as they
/// are written (`TCP_NODELAY`; redis-rs leaves Nagle's algorithm on, which
/// holds a command back while an earlier one is unacknowledged, as
/// independent commands on one multiplexed connection can be).
fn client(url: &str) -> Result<redis::Client, String> {
    use redis::IntoConnectionInfo as _;
    let info = url
        .into_connection_info()
        .map_err(|e| format!("bad Redis URL {url:?}: {e}"))?;
    let tcp = info.tcp_settings().clone().set_nodelay(true);
    redis::Client::open(info.set_tcp_settings(tcp))
        .map_err(|e| format!("bad Redis URL {url:?}: {e}"))
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
                let sha = load_script(connection, self.source).await?;
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

/// Loads `source` into Redis's script cache (`SCRIPT LOAD`): its SHA1.
async fn load_script(
    connection: &mut ConnectionManager,
    source: &str,
) -> Result<String, RedisError> {
    redis::cmd("SCRIPT")
        .arg("LOAD")
        .arg(source)
        .query_async(connection)
        .await
}

/// `EVAL`/`EVALSHA` `script` with `keys` and `args`.
fn invocation(command: &str, script: &str, keys: &[&str], args: &[&str]) -> redis::Cmd {
    let words = keys
        .iter()
        .chain(args)
        .map(|word| word.len())
        .sum::<usize>();
    let mut cmd = sized_command(
        command,
        2 + keys.len() + args.len(),
        script.len() + 4 + words,
    );
    cmd.arg(script).arg(keys.len()).arg(keys).arg(args);
    cmd
}

/// The command `name`, with room for `args` more arguments of `bytes`
/// bytes in all: written without regrowing (a claim builds one per retry).
fn sized_command(name: &str, args: usize, bytes: usize) -> redis::Cmd {
    let mut command = redis::Cmd::with_capacity(1 + args, name.len() + bytes);
    command.arg(name);
    command
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
            pipeline: Pipeline::spawn(connection.clone(), timeout),
            connection,
            prefix: KEY_PREFIX.to_owned(),
            clock: Arc::new(SystemClock),
            claim_script: Arc::new(Script::new(CLAIM_ROUND_SCRIPT)),
            native_claim: Arc::new(AtomicBool::new(true)),
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

    /// Claims with the script a Redis older than 7.0 needs, whatever this
    /// Redis supports (the tests run both ways on one Redis).
    #[doc(hidden)]
    pub fn claims_by_script(self) -> Self {
        self.native_claim.store(false, Ordering::Relaxed);
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

    /// Appends the Redis key of a fingerprint to `command`: the prefix and
    /// 64 hex digits, written into the command (no string of its own).
    fn push_key(&self, command: &mut redis::Cmd, fingerprint: &[u8; 32]) {
        push_arg(command, &[self.prefix.as_bytes(), &digest_hex(fingerprint)]);
    }

    /// The length of a key: the prefix and 64 hex digits.
    fn key_len(&self) -> usize {
        self.prefix.len() + 64
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
            let mut set = sized_command("SET", 5, self.key_len() + 32);
            self.push_key(&mut set, fingerprint);
            set.arg(1).arg("NX").arg("EX").arg(remaining);
            let reply: Option<String> = read(self.pipeline.query(set).await)
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
            let answers = digest_hex(answers);
            let kept = self
                .claim_round_once(fingerprint, &answers, remaining)
                .await
                .map_err(|e| ReplayError::Unavailable(format!("Redis claim failed: {e}")))?;
            Ok(read_claim(kept, &answers))
        })
    }

    /// One `SET .. XX KEEPTTL`, sent with the next pipeline: the round's
    /// answer does not wait for it (a duplicate that comes first finds the
    /// round running and waits for the record). `XX` keeps a key that
    /// expired meanwhile from coming back. Unlike the in-memory guard, it
    /// does not check that the key still holds this round's claim: only a
    /// second claim of the same state could have replaced it, which takes
    /// Redis losing the key (a flush, an eviction, a failover), and then
    /// the state ran twice already; the later record is the one kept.
    fn record_outcome<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        answers: &'a [u8; 32],
        outcome: Option<&'a [u8]>,
        _expires_at: u64,
    ) -> BoxFuture<'a, Result<bool, ReplayError>> {
        // The server's answers are JSON, hence UTF-8; anything else is
        // recorded as no answer.
        let outcome = outcome
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
            .filter(|outcome| !outcome.is_empty());
        let answer = outcome.unwrap_or_default();
        let mut set = sized_command("SET", 4, self.key_len() + 65 + answer.len() + 9);
        self.push_key(&mut set, fingerprint);
        // What the key holds: `D`, the digest and the answer, or `U`. The
        // answer (up to the outcome record's limit) is written into the
        // command once, not first into a string of its own.
        let read: fn(RedisResult<Value>) = match outcome {
            Some(answer) => {
                push_arg(&mut set, &[b"D", &digest_hex(answers), answer.as_bytes()]);
                read_record_of_answer
            }
            None => {
                push_arg(&mut set, &[b"U"]);
                read_record_of_nothing
            }
        };
        set.arg("XX").arg("KEEPTTL");
        let kept = outcome.is_some();
        Box::pin(async move {
            self.pipeline
                .detach(set, read)
                .await
                .map(|()| kept)
                .map_err(|e| ReplayError::Unavailable(format!("Redis record failed: {e}")))
        })
    }
}

/// Appends one argument to `command`, made of `parts` end to end.
fn push_arg(command: &mut redis::Cmd, parts: &[&[u8]]) {
    let mut arg = command.writer_for_next_arg();
    for part in parts {
        // Writing into a command's buffer cannot fail.
        let _ = arg.write_all(part);
    }
}

/// Reads the reply of a record that kept an answer, to log what failed.
fn read_record_of_answer(reply: RedisResult<Value>) {
    match read_record(reply) {
        Ok(false) => tracing::warn!(
            "the answer of a consumed requestState was not recorded: its key was gone; a \
             duplicate retry is refused if the state expired first, and runs the handler \
             again if Redis lost the key"
        ),
        Ok(true) => {}
        Err(error) => warn_unrecorded(&error),
    }
}

/// Reads the reply of a record of no answer, to log what failed.
fn read_record_of_nothing(reply: RedisResult<Value>) {
    if let Err(error) = read_record(reply) {
        warn_unrecorded(&error);
    }
}

/// Whether a record (`SET .. XX`) wrote: `OK`, or nil when the key was
/// gone. Read without a string of its own.
fn read_record(reply: RedisResult<Value>) -> RedisResult<bool> {
    match reply?.extract_error()? {
        Value::Okay => Ok(true),
        Value::Nil => Ok(false),
        other => Ok(redis::from_redis_value::<Option<String>>(other)?.is_some()),
    }
}

fn warn_unrecorded(error: &RedisError) {
    tracing::warn!(
        %error,
        "could not record the answer of a consumed requestState: a duplicate retry will be \
         refused or wait"
    );
}

/// A pipelined command's reply as `T` (a server error as an error).
fn read<T: FromRedisValue>(reply: RedisResult<Value>) -> RedisResult<T> {
    Ok(redis::from_redis_value(reply?.extract_error()?)?)
}

impl RedisReplayGuard {
    /// Claims the key of `fingerprint` for a round, running with the
    /// `answers` digest's hex digits, in one round trip: what the key held
    /// before, `None` on the first use.
    async fn claim_round_once(
        &self,
        fingerprint: &[u8; 32],
        answers: &[u8; 64],
        remaining: u64,
    ) -> Result<Option<Vec<u8>>, RedisError> {
        if self.native_claim.load(Ordering::Relaxed) {
            let mut set = sized_command("SET", 6, self.key_len() + 65 + 32);
            self.push_key(&mut set, fingerprint);
            // What the key holds while the round runs: `R` and the digest.
            push_arg(&mut set, &[b"R", answers]);
            set.arg("NX").arg("GET").arg("EX").arg(remaining);
            match read(self.pipeline.query(set).await) {
                Err(e) if refuses_nx_with_get(&e) => {
                    tracing::info!(
                        "this Redis refuses SET NX GET (before 7.0): claims run as a script"
                    );
                    self.native_claim.store(false, Ordering::Relaxed);
                }
                reply => return reply,
            }
        }
        let mut key = String::with_capacity(self.key_len());
        key.push_str(&self.prefix);
        crate::hex::push_hex(&mut key, fingerprint);
        let answers = std::str::from_utf8(answers).unwrap_or_default();
        let mut connection = self.connection.clone();
        self.claim_script
            .run(&mut connection, &[&key], &[answers, &remaining.to_string()])
            .await
    }
}

/// Whether Redis refused `SET` with both `NX` and `GET` (before 7.0).
fn refuses_nx_with_get(error: &RedisError) -> bool {
    error.kind() == ErrorKind::Server(ServerErrorKind::ResponseError)
        && error.detail().is_some_and(|d| d.contains("syntax"))
}

/// What a claim found, from what the key held before (`None`: nothing, so
/// this claim is the first use). See [`CLAIM_ROUND_SCRIPT`].
fn read_claim(kept: Option<Vec<u8>>, answers: &[u8]) -> RoundClaim {
    let Some(kept) = kept else {
        return RoundClaim::First;
    };
    let (tag, rest) = match kept.split_first() {
        Some((tag, rest)) => (*tag, rest),
        None => return RoundClaim::Refused,
    };
    match (tag, rest.strip_prefix(answers)) {
        (b'R', Some(_)) => RoundClaim::Running,
        (b'D', Some(answer)) => RoundClaim::Recorded(answer.to_vec()),
        _ => RoundClaim::Refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_go_out_without_nagles_delay() {
        let redis = client("redis://127.0.0.1:6379/2").unwrap();
        let info = redis.get_connection_info();
        assert!(info.tcp_settings().nodelay());
        assert_eq!(info.redis_settings().db(), 2);
        let error = client("http://127.0.0.1:6379").unwrap_err();
        assert!(error.starts_with("bad Redis URL"), "{error}");
    }

    #[test]
    fn a_records_reply_reads_as_kept_or_expired() {
        // `SET .. XX` answers OK when it wrote, nil when the key was gone.
        assert!(matches!(read_record(Ok(Value::Okay)), Ok(true)));
        assert!(matches!(
            read_record(Ok(Value::SimpleString("OK".to_owned()))),
            Ok(true)
        ));
        assert!(matches!(read_record(Ok(Value::Nil)), Ok(false)));
        assert!(read_record(Ok(Value::Array(Vec::new()))).is_err());
    }

    #[test]
    fn a_claim_reads_what_the_key_held() {
        let answers = [b'a'; 64];
        let held = |tag: u8, digest: &[u8], rest: &[u8]| Some([&[tag][..], digest, rest].concat());
        assert_eq!(read_claim(None, &answers), RoundClaim::First);
        assert_eq!(
            read_claim(held(b'R', &answers, b""), &answers),
            RoundClaim::Running
        );
        assert_eq!(
            read_claim(held(b'D', &answers, b"Rdone"), &answers),
            RoundClaim::Recorded(b"Rdone".to_vec())
        );
        assert_eq!(
            read_claim(held(b'D', &[b'b'; 64], b"R"), &answers),
            RoundClaim::Refused
        );
        assert_eq!(
            read_claim(held(b'R', &[b'b'; 64], b""), &answers),
            RoundClaim::Refused
        );
        assert_eq!(
            read_claim(Some(b"U".to_vec()), &answers),
            RoundClaim::Refused
        );
        assert_eq!(
            read_claim(Some(b"1".to_vec()), &answers),
            RoundClaim::Refused
        );
        assert_eq!(read_claim(Some(Vec::new()), &answers), RoundClaim::Refused);
    }
}
