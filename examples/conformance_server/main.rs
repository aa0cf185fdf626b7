//! The server the official MCP conformance suite runs against.
//!
//! ```text
//! conformance-server --listen 127.0.0.1:PORT [HTTP LIMITS] [STATE OPTIONS]
//! conformance-server --stdio [--max-in-flight N] [STATE OPTIONS]
//!   --max-in-flight N           requests handled at once over stdio
//!
//! HTTP LIMITS (the transport's defaults otherwise; see docs/deploying.md)
//!   --max-body-bytes N          the largest request body (413 above)
//!   --body-timeout-ms N         the time a body may take to arrive (408 after)
//!   --header-timeout-ms N       the time a request head may take, idle time before it included
//!   --write-timeout-ms N        the time a write may wait for the client to read
//!   --max-connections N         connections served at once
//!   --max-sessions N            2025-era sessions open at once
//!   --session-idle-timeout-ms N the time a 2025-era session may sit idle before it ends
//!
//! STATE OPTIONS
//!   --state-key-hex HEX         the requestState signing key, hex (at least 32 bytes);
//!                               a random key by default, so states die with the process
//!   --state-verify-key-hex HEX  an older key that still verifies (repeatable), for
//!                               rolling keys through a fleet without failed retries
//!   --state-ttl SECONDS         how long a requestState stays valid (default 600)
//!   --single-use                accept each state once (remembered in this process, which
//!                               forgets on restart: use --redis for that and for a fleet)
//!   --redis URL                 accept each state once across every instance using
//!                               this Redis (e.g. redis://127.0.0.1:6379); fails closed
//!   --max-outcome-bytes N       with single use, the largest answer kept for a retry of
//!                               the same state and answers (default 65536)
//!   --no-outcome-record         with single use, keep no answer: every duplicate is refused
//!
//! 2025-ERA CLIENTS
//!   --round-timeout-ms N        how long the bridge waits for a 2025-era client's answers
//!                               to one round of questions (elicitation/create, ...) before
//!                               the request ends saying so (default 600000)
//!
//! MEMORY (what peers may make the server keep; see MemoryLimits)
//!   --memory-budget-bytes N     the budget for everything peers make the server hold;
//!                               past it new work is refused as busy (default 1 GiB)
//!   --max-client-data-bytes N   the most a 2025-era session keeps of initialize's
//!                               clientInfo and capabilities, as JSON (default 16384)
//!   --max-uri-bytes N           the longest subscribed resource URI (default 4096)
//!   --max-listen-uris N         the most URIs one subscriptions/listen watches (1024)
//!   --max-subscriptions N       the most resources one session subscribes to (1024)
//!
//! TASK OPTIONS (the tasks extension)
//!   --tasks-redis URL           keep task records in this Redis, so every instance using
//!                               it serves every task (in this process otherwise)
//!   --task-lease-ms N           how long a task's round may go unconfirmed before the
//!                               task is failed as abandoned (default 30000)
//!   --task-ttl-ms N             how long a task's record is kept (default 3600000)
//!   --task-caller-cap N         tasks one authenticated caller may hold, finished ones
//!                               included until they expire (default 100)
//!   --task-client-cap N         tasks one unauthenticated client (one IP address) may hold,
//!                               finished ones included until they expire (default 20)
//!   --task-anonymous-cap N      tasks all unauthenticated clients together may hold
//!                               (default 5000)
//!   --task-capacity N           records the in-memory task store holds (default 10000;
//!                               not with --tasks-redis)
//!
//! PROTECTION (HTTP only; unprotected by default)
//!   --protect ISSUER            require OAuth access tokens from the authorization server
//!                               ISSUER (its issuer URL, exactly), for this server as audience
//!   --public-url URL            the server's canonical URI (default http://LISTEN/mcp, which
//!                               needs a fixed port in --listen)
//!   --introspection-url URL     check opaque tokens at this RFC 7662 endpoint (JWTs against
//!                               the issuer's published keys otherwise)
//!   --required-scope SCOPE      a scope every request needs (repeatable)
//! ```
//!
//! Over HTTP it prints `listening on http://127.0.0.1:PORT/mcp` to stderr
//! once it accepts connections. Logs go to stderr (`RUST_LOG` filters them).
//! The fixtures live in `fixtures.rs` and the modules it registers.

mod exactly_once;
mod fixtures;
mod input_required;
mod legacy;
mod prompts;
mod resources;
mod tasks;
mod tools;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use mcp_runtime::auth::{IntrospectionVerifier, JwtVerifier, ProtectedResource};
use mcp_runtime::server::tasks::{InMemoryTaskStore, RedisTaskStore, Tasks};
use mcp_runtime::server::{Bridge, MemoryLimits, OutcomeRecord, Server};
use mcp_runtime::state::{
    InMemoryReplayGuard, KeyError, RedisReplayGuard, RequestStateSigner, SigningKey,
};
use mcp_runtime::transport::http::{HttpLimits, HttpTransport};
use mcp_runtime::transport::stdio;

const USAGE: &str = "usage: conformance-server (--listen ADDR [--max-body-bytes N] \
                     [--body-timeout-ms N] [--header-timeout-ms N] [--write-timeout-ms N] \
                     [--max-connections N] [--max-sessions N] [--session-idle-timeout-ms N] \
                     | --stdio [--max-in-flight N]) \
                     [--state-key-hex HEX] [--state-verify-key-hex HEX]... [--state-ttl SECONDS] \
                     [--single-use] [--redis URL] [--max-outcome-bytes N] [--no-outcome-record] \
                     [--round-timeout-ms N] \
                     [--memory-budget-bytes N] [--max-client-data-bytes N] [--max-uri-bytes N] \
                     [--max-listen-uris N] [--max-subscriptions N] \
                     [--tasks-redis URL] [--task-lease-ms N] [--task-ttl-ms N] \
                     [--task-caller-cap N] [--task-client-cap N] [--task-anonymous-cap N] \
                     [--task-capacity N] \
                     [--protect ISSUER [--public-url URL] [--introspection-url URL] \
                     [--required-scope SCOPE]...]";

enum Mode {
    /// The transport's limits: its defaults, changed by the flags given.
    Http {
        listen: String,
        limits: HttpLimits,
    },
    Stdio {
        max_in_flight: Option<usize>,
    },
}

/// The value of `flag`, the next argument, as a positive number.
fn number<T: std::str::FromStr + PartialOrd + Default>(
    flag: &str,
    args: &mut impl Iterator<Item = String>,
) -> Result<T, String> {
    let value = args.next().ok_or(format!("{flag} needs a number"))?;
    match value.parse::<T>() {
        Ok(n) if n > T::default() => Ok(n),
        _ => Err(format!("{flag}: {value:?} is not a positive number")),
    }
}

/// The value of `flag`, the next argument, as a positive number of
/// milliseconds.
fn millis(flag: &str, args: &mut impl Iterator<Item = String>) -> Result<Duration, String> {
    number(flag, args).map(Duration::from_millis)
}

/// Which states are accepted more than once.
enum SingleUse {
    /// Any state, as long as it verifies and has not expired.
    Off,
    /// Each state once, remembered in this process.
    InMemory,
    /// Each state once across every instance sharing this Redis URL.
    Redis(String),
}

struct Options {
    mode: Mode,
    /// The signing key's bytes; `None` for a random key.
    state_key: Option<Vec<u8>>,
    /// Older keys that still verify.
    verify_keys: Vec<Vec<u8>>,
    /// `--state-ttl`; the signer's default lifetime when `None`.
    state_ttl: Option<Duration>,
    single_use: SingleUse,
    /// `--max-outcome-bytes` (0 for `--no-outcome-record`).
    max_outcome_bytes: Option<usize>,
    tasks: TaskOptions,
    protect: Option<Protect>,
    /// `--round-timeout-ms`; the bridge's default when `None`.
    round_timeout: Option<Duration>,
    /// What peers may make the server keep: the defaults, changed by the
    /// flags given.
    memory: MemoryLimits,
}

/// `--protect` and its companions.
struct Protect {
    issuer: String,
    public_url: Option<String>,
    introspection: Option<String>,
    scopes: Vec<String>,
}

impl Protect {
    /// The transport, protected: the resource at the public URL (or
    /// `http://LISTEN/mcp`), its tokens checked by introspection or
    /// against the issuer's published keys.
    async fn apply(&self, transport: HttpTransport, listen: &str) -> Result<HttpTransport, String> {
        let public = match &self.public_url {
            Some(url) => url.clone(),
            None if !listen.ends_with(":0") => format!("http://{listen}/mcp"),
            None => {
                return Err("--protect needs --public-url, or a fixed port in --listen".to_owned());
            }
        };
        let resource = ProtectedResource::new(&public, &self.issuer)
            .map_err(|e| format!("--protect: {e}"))?
            .scopes_supported(self.scopes.clone())
            .required_scopes(self.scopes.clone());
        Ok(match &self.introspection {
            Some(endpoint) => {
                let verifier = IntrospectionVerifier::new(&resource, endpoint.clone());
                transport.protect(resource, verifier)
            }
            None => {
                let verifier = JwtVerifier::discover(&resource)
                    .await
                    .map_err(|e| format!("--protect: {e}"))?;
                transport.protect(resource, verifier)
            }
        })
    }
}

/// How tasks are kept and timed.
#[derive(Default)]
struct TaskOptions {
    /// The Redis every instance keeps task records in.
    redis: Option<String>,
    lease_ms: Option<u64>,
    ttl_ms: Option<u64>,
    /// `--task-caller-cap`: tasks one authenticated caller holds.
    caller_cap: Option<usize>,
    /// `--task-client-cap`: tasks one unauthenticated client holds.
    client_cap: Option<usize>,
    /// `--task-anonymous-cap`: tasks unauthenticated clients hold together.
    anonymous_cap: Option<usize>,
    /// `--task-capacity`: records the in-memory store holds.
    capacity: Option<usize>,
}

impl TaskOptions {
    fn tasks(&self) -> Result<Tasks, String> {
        let mut tasks = match (&self.redis, self.capacity) {
            (Some(_), Some(_)) => {
                return Err("--task-capacity is for the in-memory store, not --tasks-redis".into());
            }
            (Some(url), None) => {
                Tasks::new(RedisTaskStore::new(url).map_err(|e| format!("--tasks-redis: {e}"))?)
            }
            (None, Some(capacity)) => Tasks::new(InMemoryTaskStore::with_capacity(capacity)),
            (None, None) => Tasks::default(),
        };
        if let Some(max) = self.caller_cap {
            tasks = tasks.max_tasks_per_caller(max);
        }
        if let Some(max) = self.client_cap {
            tasks = tasks.max_tasks_per_anonymous_client(max);
        }
        if let Some(max) = self.anonymous_cap {
            tasks = tasks.max_anonymous_tasks(max);
        }
        if let Some(ms) = self.lease_ms {
            tasks = tasks.lease(Duration::from_millis(ms));
        }
        if let Some(ms) = self.ttl_ms {
            tasks = tasks.ttl(Duration::from_millis(ms));
        }
        Ok(tasks)
    }
}

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut listen = None;
    let mut stdio = false;
    let mut limits = HttpLimits::default();
    let mut max_in_flight = None;
    let mut state_key = None;
    let mut verify_keys = Vec::new();
    let mut state_ttl = None;
    let mut single_use = SingleUse::Off;
    let mut max_outcome_bytes = None;
    let mut tasks = TaskOptions::default();
    let mut protect: Option<Protect> = None;
    let mut round_timeout = None;
    let mut memory = MemoryLimits::default();
    let (mut public_url, mut introspection, mut scopes) = (None, None, Vec::new());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--listen" => listen = Some(args.next().ok_or("--listen needs an address")?),
            "--stdio" => stdio = true,
            "--max-body-bytes" => limits.max_body_bytes = number(&arg, &mut args)?,
            "--body-timeout-ms" => limits.body_timeout = millis(&arg, &mut args)?,
            "--header-timeout-ms" => limits.header_timeout = millis(&arg, &mut args)?,
            "--write-timeout-ms" => limits.write_timeout = millis(&arg, &mut args)?,
            "--max-connections" => limits.max_connections = number(&arg, &mut args)?,
            "--max-sessions" => limits.max_sessions = number(&arg, &mut args)?,
            "--session-idle-timeout-ms" => {
                limits.session_idle_timeout = millis(&arg, &mut args)?;
            }
            "--max-in-flight" => max_in_flight = Some(number(&arg, &mut args)?),
            "--state-key-hex" => {
                let value = args.next().ok_or("--state-key-hex needs a hex key")?;
                state_key = Some(parse_state_key("--state-key-hex", &value)?);
            }
            "--state-verify-key-hex" => {
                let value = args
                    .next()
                    .ok_or("--state-verify-key-hex needs a hex key")?;
                verify_keys.push(parse_state_key("--state-verify-key-hex", &value)?);
            }
            "--single-use" => {
                if matches!(single_use, SingleUse::Off) {
                    single_use = SingleUse::InMemory;
                }
            }
            "--protect" => {
                let issuer = args.next().ok_or("--protect needs the issuer URL")?;
                protect.get_or_insert_with(|| Protect {
                    issuer: String::new(),
                    public_url: None,
                    introspection: None,
                    scopes: Vec::new(),
                });
                if let Some(protect) = protect.as_mut() {
                    protect.issuer = issuer;
                }
            }
            "--public-url" => public_url = Some(args.next().ok_or("--public-url needs a URL")?),
            "--introspection-url" => {
                introspection = Some(args.next().ok_or("--introspection-url needs a URL")?);
            }
            "--required-scope" => {
                scopes.push(args.next().ok_or("--required-scope needs a scope")?);
            }
            "--tasks-redis" => {
                tasks.redis = Some(args.next().ok_or("--tasks-redis needs a URL")?);
            }
            "--task-lease-ms" => tasks.lease_ms = Some(number(&arg, &mut args)?),
            "--task-ttl-ms" => tasks.ttl_ms = Some(number(&arg, &mut args)?),
            "--round-timeout-ms" => round_timeout = Some(millis(&arg, &mut args)?),
            "--memory-budget-bytes" => memory.budget_bytes = number(&arg, &mut args)?,
            "--max-client-data-bytes" => memory.max_client_data_bytes = number(&arg, &mut args)?,
            "--max-uri-bytes" => memory.max_uri_bytes = number(&arg, &mut args)?,
            "--max-listen-uris" => memory.max_listen_uris = number(&arg, &mut args)?,
            "--max-subscriptions" => memory.max_subscriptions = number(&arg, &mut args)?,
            "--task-caller-cap" => tasks.caller_cap = Some(number(&arg, &mut args)?),
            "--task-client-cap" => tasks.client_cap = Some(number(&arg, &mut args)?),
            "--task-anonymous-cap" => tasks.anonymous_cap = Some(number(&arg, &mut args)?),
            "--task-capacity" => tasks.capacity = Some(number(&arg, &mut args)?),
            "--redis" => {
                let url = args.next().ok_or("--redis needs a URL")?;
                single_use = SingleUse::Redis(url);
            }
            "--max-outcome-bytes" => max_outcome_bytes = Some(number(&arg, &mut args)?),
            "--no-outcome-record" => max_outcome_bytes = Some(0),
            "--state-ttl" => {
                let value = args.next().ok_or("--state-ttl needs a number of seconds")?;
                state_ttl = match value.parse() {
                    Ok(seconds) if seconds > 0 => Some(Duration::from_secs(seconds)),
                    _ => {
                        return Err(format!(
                            "--state-ttl: {value:?} is not a positive number of seconds"
                        ));
                    }
                };
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    if stdio && protect.is_some() {
        return Err("--protect is for HTTP (--listen); stdio servers are not protected".to_owned());
    }
    let mode = match (listen, stdio) {
        (Some(listen), false) => Mode::Http { listen, limits },
        (None, true) => Mode::Stdio { max_in_flight },
        _ => return Err(USAGE.to_owned()),
    };
    if state_key.is_none() && !verify_keys.is_empty() {
        return Err(
            "--state-verify-key-hex needs --state-key-hex: older keys only make \
                    sense beside a signing key"
                .to_owned(),
        );
    }
    Ok(Options {
        mode,
        state_key,
        verify_keys,
        state_ttl,
        single_use,
        max_outcome_bytes,
        tasks,
        round_timeout,
        memory,
        protect: match protect {
            Some(protect) => Some(Protect {
                public_url,
                introspection,
                scopes,
                ..protect
            }),
            None if public_url.is_some() || introspection.is_some() || !scopes.is_empty() => {
                return Err(
                    "--public-url, --introspection-url and --required-scope need --protect"
                        .to_owned(),
                );
            }
            None => None,
        },
    })
}

/// Decodes the hex key given to `flag`, of at least 32 bytes.
fn parse_state_key(flag: &str, hex: &str) -> Result<Vec<u8>, String> {
    let fail = |why: &str| format!("{flag}: {why}");
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(fail("not a hex string (0-9, a-f, A-F only)"));
    }
    if !hex.len().is_multiple_of(2) {
        return Err(fail("an odd number of hex digits"));
    }
    let digit = |b: u8| match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    };
    let bytes: Vec<u8> = hex
        .as_bytes()
        .chunks_exact(2)
        .map(|pair| (digit(pair[0]) << 4) | digit(pair[1]))
        .collect();
    let min = mcp_runtime::state::MIN_SECRET_BYTES;
    if bytes.len() < min {
        return Err(fail(&format!(
            "the key is {} bytes; at least {min} bytes ({} hex digits) are needed",
            bytes.len(),
            min * 2
        )));
    }
    Ok(bytes)
}

fn signer(options: &Options) -> Result<RequestStateSigner, String> {
    let key_error = |e: KeyError| format!("request-state key: {e}");
    let signing = match &options.state_key {
        Some(key) => SigningKey::new(key),
        None => SigningKey::generate(),
    }
    .map_err(key_error)?;
    let verifying = options
        .verify_keys
        .iter()
        .map(SigningKey::new)
        .collect::<Result<Vec<_>, _>>()
        .map_err(key_error)?;
    let signer = RequestStateSigner::with_keys(signing, verifying);
    Ok(match options.state_ttl {
        Some(lifetime) => signer.expires_after(lifetime),
        None => signer,
    })
}

/// The server, with the replay guard `options` ask for.
async fn server(options: &Options, signer: RequestStateSigner) -> Result<Server, String> {
    let mut builder = fixtures::server(signer).tasks(options.tasks.tasks()?);
    builder = builder.memory_limits(options.memory);
    if let Some(timeout) = options.round_timeout {
        builder = builder.bridge(Bridge::default().round_timeout(timeout));
    }
    match options.max_outcome_bytes {
        Some(0) => builder = builder.outcomes(OutcomeRecord::off()),
        Some(bytes) => builder = builder.outcomes(OutcomeRecord::default().max_bytes(bytes)),
        None => {}
    }
    let builder = match &options.single_use {
        SingleUse::Off => builder,
        SingleUse::InMemory => builder.replay_guard(InMemoryReplayGuard::new()),
        SingleUse::Redis(url) => {
            let guard = RedisReplayGuard::new(url).map_err(|e| format!("--redis: {e}"))?;
            // Start anyway: retries are refused until Redis answers.
            if let Err(error) = guard.ping().await {
                tracing::warn!(%error, "Redis is unreachable; retries carrying a requestState \
                                        will be refused until it answers");
            }
            builder.replay_guard(guard)
        }
    };
    builder.build().map_err(|e| e.to_string())
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let signer = match signer(&options) {
        Ok(signer) => signer,
        Err(message) => {
            eprintln!("conformance-server: {message}");
            return ExitCode::from(2);
        }
    };
    let server = match server(&options, signer).await {
        Ok(server) => server,
        Err(error) => {
            eprintln!("conformance-server: {error}");
            return ExitCode::from(2);
        }
    };
    let result = match options.mode {
        Mode::Stdio { max_in_flight } => {
            let mut transport = stdio::StdioTransport::new(server);
            if let Some(limit) = max_in_flight {
                transport = transport.max_in_flight(limit);
            }
            transport.serve().await
        }
        Mode::Http { listen, limits } => {
            let mut transport = HttpTransport::new(server).limits(limits);
            if let Some(protect) = &options.protect {
                transport = match protect.apply(transport, &listen).await {
                    Ok(transport) => transport,
                    Err(message) => {
                        eprintln!("conformance-server: {message}");
                        return ExitCode::from(2);
                    }
                };
            }
            match transport.bind(listen.as_str()).await {
                Ok(bound) => {
                    eprintln!("listening on {}", bound.url());
                    bound.serve().await
                }
                Err(error) => Err(error),
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-server: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_state_key;

    #[test]
    fn state_keys_are_hex_of_at_least_32_bytes() {
        let parse = |hex: &str| parse_state_key("--state-key-hex", hex);
        let key = "00ff".repeat(16);
        assert_eq!(parse(&key).map(|k| k.len()), Ok(32));
        assert_eq!(parse(&key.to_uppercase()).map(|k| k[1]), Ok(0xff));
        assert!(parse(&"ab".repeat(31)).is_err(), "31 bytes");
        assert!(parse(&format!("{key}0")).is_err(), "odd length");
        assert!(parse(&format!("{key}zz")).is_err(), "not hex");
        assert!(parse(&format!("{key}+1")).is_err(), "a sign is not a digit");
        assert!(
            parse_state_key("--state-verify-key-hex", "xy")
                .is_err_and(|e| e.starts_with("--state-verify-key-hex: ")),
            "the error names the flag"
        );
    }
}
