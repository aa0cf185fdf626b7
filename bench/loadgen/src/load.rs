//! The load itself: `concurrency` keep-alive HTTP/1.1 connections, each
//! driven by one task that sends its requests one after another. Every run
//! is bounded by a request budget and a deadline, and each request by a
//! timeout. For a 2025-era workload each connection first opens a session
//! of its own (before the clock starts) and ends it with `DELETE` after.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde_json::Value;

use crate::http1::{self, Connection};
use crate::process::steal_ms;
use crate::target::Target;
use crate::wire::{self, Failure, Reply, Template};

/// How many times opening a connection is tried before the run fails.
const CONNECT_ATTEMPTS: u32 = 5;

/// What each unit of work sends.
#[derive(Debug, Clone)]
pub(crate) enum Workload {
    /// One `tools/call` of a tool that completes at once.
    Plain {
        /// The tool's name.
        tool: String,
    },
    /// The full two-round flow: a `tools/call` answered `input_required`,
    /// then the retry with the answer and the echoed `requestState`,
    /// answered `complete`.
    TwoRound {
        /// The tool's name.
        tool: String,
        /// The key the tool asks under.
        key: String,
        /// The answer sent under `key` (an `ElicitResult`).
        answer: Value,
    },
    /// A 2025-era client: one `tools/call` of a tool that completes at
    /// once, inside the connection's session (`MCP-Session-Id`,
    /// `MCP-Protocol-Version`, no `_meta`), answered in the 2025 shape.
    LegacyPlain {
        /// The tool's name.
        tool: String,
    },
}

impl Workload {
    /// The HTTP requests one unit sends.
    fn requests_per_unit(&self) -> u64 {
        match self {
            Self::Plain { .. } | Self::LegacyPlain { .. } => 1,
            Self::TwoRound { .. } => 2,
        }
    }

    /// The name used in reports.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Self::Plain { .. } => "plain",
            Self::TwoRound { .. } => "two-round",
            Self::LegacyPlain { .. } => "legacy-plain",
        }
    }

    /// Whether each connection works inside a 2025-era session.
    fn in_session(&self) -> bool {
        matches!(self, Self::LegacyPlain { .. })
    }
}

/// The bounds and shape of one run.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Open connections, each with one request in flight at a time.
    pub(crate) concurrency: usize,
    /// The most HTTP requests measured (the warm-up is extra).
    pub(crate) max_requests: u64,
    /// The longest the measured part may take.
    pub(crate) duration: Duration,
    /// Load sent before measuring, not recorded.
    pub(crate) warmup: Duration,
    /// The longest one request may take before it counts as failed.
    pub(crate) timeout: Duration,
}

/// What a run measured.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// Successful HTTP requests measured.
    pub(crate) ok: u64,
    /// Failed requests (or failed flows' requests) measured.
    pub(crate) errors: u64,
    /// The first failure seen, for the report.
    pub(crate) first_failure: Option<Failure>,
    /// From the end of the warm-up to the last measured answer.
    pub(crate) elapsed: Duration,
    /// Latency of each successful HTTP request, in microseconds.
    pub(crate) latency_us: Histogram<u64>,
    /// CPU time the host took from this machine while measuring, ms
    /// ([`steal_ms`]), when `/proc/stat` tells.
    pub(crate) steal_ms: Option<u64>,
}

/// The state shared by the workers.
struct Shared {
    /// Where the requests go.
    target: Target,
    /// What each unit sends.
    workload: Workload,
    /// The bounds.
    plan: Plan,
    /// Requests claimed from the budget.
    claimed: AtomicU64,
    /// When measuring starts.
    measure_from: Instant,
    /// When the run stops, whatever the budget.
    deadline: Instant,
}

/// One worker's tally.
struct Tally {
    /// Successful requests measured.
    ok: u64,
    /// Failed requests measured.
    errors: u64,
    /// The first failure, measured or not.
    first_failure: Option<Failure>,
    /// Latency of each successful measured request, µs.
    latency_us: Histogram<u64>,
    /// When the last measured answer arrived.
    last_answer: Option<Instant>,
}

/// A histogram of 1 µs to 60 s at three significant figures.
fn histogram() -> Result<Histogram<u64>, String> {
    Histogram::new_with_bounds(1, 60_000_000, 3).map_err(|e| format!("histogram: {e}"))
}

/// Opens one HTTP/1.1 connection to the target.
async fn connect(target: &Target) -> Result<Connection, Failure> {
    Connection::open(target.addr).await
}

/// Replaces `connection` with a fresh one if the server closed it.
async fn reopen(connection: &mut Connection, target: &Target) -> Result<(), Failure> {
    if connection.is_closed() {
        *connection = connect(target).await?;
    }
    Ok(())
}

/// Opens a connection, trying up to [`CONNECT_ATTEMPTS`] times 100 ms
/// apart (a server that has just started may refuse one now and then).
pub(crate) async fn connect_patiently(target: &Target) -> Result<Connection, Failure> {
    let mut attempt = 1;
    loop {
        match connect(target).await {
            Ok(connection) => return Ok(connection),
            Err(failure) if attempt >= CONNECT_ATTEMPTS => return Err(failure),
            Err(_) => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// How a message is framed on HTTP.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Framing<'a> {
    /// A 2026-07-28 request: `MCP-Protocol-Version`, `Mcp-Method` and
    /// `Mcp-Name` (the tool).
    Modern {
        /// The tool called.
        tool: &'a str,
    },
    /// A 2025-era message: `MCP-Session-Id` and `MCP-Protocol-Version`
    /// once a session is open; neither for `initialize`.
    Legacy {
        /// The session's id.
        session: Option<&'a str>,
    },
}

/// The head of a request framed as `framing`: a `POST` with a JSON body,
/// or (`post` false) a `DELETE` without one.
pub(crate) fn head(target: &Target, framing: Framing<'_>, post: bool) -> Result<Vec<u8>, Failure> {
    let mut fields: Vec<(&str, &str)> = Vec::with_capacity(5);
    if post {
        fields.push(("content-type", "application/json"));
        fields.push(("accept", wire::ACCEPT));
    }
    match framing {
        Framing::Modern { tool } => {
            fields.push(("mcp-protocol-version", wire::PROTOCOL_VERSION));
            fields.push(("mcp-method", "tools/call"));
            fields.push(("mcp-name", tool));
        }
        Framing::Legacy { session: Some(id) } => {
            fields.push((wire::SESSION_ID, id));
            fields.push(("mcp-protocol-version", wire::LEGACY_PROTOCOL_VERSION));
        }
        Framing::Legacy { session: None } => {}
    }
    let method = if post { "POST" } else { "DELETE" };
    http1::request_head(method, &target.path, &target.authority, &fields)
}

/// Sends one request (`head`, then `body` if any) and reads the whole
/// answer within `timeout`; `read` takes the answer's status and body.
async fn exchange<T>(
    connection: &mut Connection,
    timeout: Duration,
    head: &[u8],
    body: Option<&[u8]>,
    read: impl FnOnce(http1::Answer<'_>) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let exchange = async { connection.exchange(head, body).await.and_then(read) };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| Failure::Transport("timed out".to_owned()))?
}

/// Sends one request and checks the JSON-RPC response to it (HTTP 200)
/// with `check`; also returns the answer's `MCP-Session-Id`, if any.
pub(crate) async fn call<T>(
    connection: &mut Connection,
    timeout: Duration,
    head: &[u8],
    id: u64,
    body: &[u8],
    check: impl FnOnce(&Reply<'_>) -> Result<T, Failure>,
) -> Result<(T, Option<String>), Failure> {
    exchange(connection, timeout, head, Some(body), |answer| {
        if answer.status != 200 {
            return Err(Failure::Status(answer.status));
        }
        let checked = wire::read_response(answer.content_type, answer.body, id, check)?;
        Ok((checked, answer.session.map(str::to_owned)))
    })
    .await
}

/// Opens a 2025-era session: `initialize` (request `id`), whose answer
/// must name the session in `MCP-Session-Id` and agree on
/// [`wire::LEGACY_PROTOCOL_VERSION`], then `notifications/initialized`,
/// which must be accepted with 202. Returns the session's id.
pub(crate) async fn open_session(
    connection: &mut Connection,
    target: &Target,
    timeout: Duration,
    id: u64,
) -> Result<String, Failure> {
    let opening = head(target, Framing::Legacy { session: None }, true)?;
    let ((), session) = call(
        connection,
        timeout,
        &opening,
        id,
        &wire::initialize(id),
        wire::expect_initialize,
    )
    .await?;
    let session = session.ok_or(Failure::Unexpected("initialize opened no MCP-Session-Id"))?;
    let framing = Framing::Legacy {
        session: Some(&session),
    };
    let note = head(target, framing, true)?;
    let status = exchange(
        connection,
        timeout,
        &note,
        Some(&wire::initialized()),
        |a| Ok(a.status),
    )
    .await?;
    if status != 202 {
        return Err(Failure::Status(status));
    }
    Ok(session)
}

/// Ends a 2025-era session with `DELETE`, which must answer 200.
pub(crate) async fn close_session(
    connection: &mut Connection,
    target: &Target,
    timeout: Duration,
    session: &str,
) -> Result<(), Failure> {
    let framing = Framing::Legacy {
        session: Some(session),
    };
    let deleting = head(target, framing, false)?;
    match exchange(connection, timeout, &deleting, None, |a| Ok(a.status)).await? {
        200 => Ok(()),
        status => Err(Failure::Status(status)),
    }
}

impl Tally {
    /// Counts `requests` failed requests (0 during the warm-up) and keeps
    /// the first failure.
    fn fail(&mut self, requests: u64, failure: Failure) {
        self.errors += requests;
        if self.first_failure.is_none() {
            self.first_failure = Some(failure);
        }
    }

    /// Counts one request that started at `started`: a success, or one
    /// failed request if it is measured.
    fn count<T>(&mut self, outcome: Result<T, Failure>, started: Instant, measured: bool) {
        match outcome {
            Ok(_) => self.record(started, measured),
            Err(failure) => self.fail(u64::from(measured), failure),
        }
    }

    /// Records a success that started at `started`, if it is measured.
    fn record(&mut self, started: Instant, measured: bool) {
        let now = Instant::now();
        if measured {
            let micros = u64::try_from(now.duration_since(started).as_micros()).unwrap_or(u64::MAX);
            self.latency_us.saturating_record(micros.max(1));
            self.ok += 1;
            self.last_answer = Some(now);
        }
    }
}

/// How the answer to a call that completes is checked.
type CompleteCheck = fn(&Reply<'_>) -> Result<(), Failure>;

/// What one connection sends, made before its loop: the request head and
/// the body templates of its workload.
struct Requests {
    /// The head of every measured request.
    head: Vec<u8>,
    /// The body of a call (a 2025-era one for `legacy-plain`).
    call: Template,
    /// How the answer to a call that completes is checked (in the 2025
    /// shape for `legacy-plain`).
    complete: CompleteCheck,
    /// For `two-round`: the key the first answer must ask under, and the
    /// body of the retry.
    retry: Option<(String, Template)>,
    /// The longest one request may take.
    timeout: Duration,
}

impl Requests {
    /// The requests of `workload` on a connection in `session`, if any.
    fn new(
        target: &Target,
        workload: &Workload,
        session: Option<&str>,
        timeout: Duration,
    ) -> Result<Self, String> {
        let (framing, call, complete) = match workload {
            Workload::Plain { tool } | Workload::TwoRound { tool, .. } => (
                Framing::Modern { tool },
                Template::new(|id, _| wire::tools_call(id, tool, None))?,
                wire::expect_complete as CompleteCheck,
            ),
            Workload::LegacyPlain { tool } => (
                Framing::Legacy { session },
                Template::new(|id, _| wire::legacy_tools_call(id, tool))?,
                wire::expect_legacy_complete as CompleteCheck,
            ),
        };
        let retry = match workload {
            Workload::TwoRound { tool, key, answer } => {
                let responses = serde_json::json!({ key.as_str(): answer });
                let retry = Template::new(|id, state| {
                    wire::tools_call(id, tool, Some((&responses, state)))
                })?;
                Some((key.clone(), retry))
            }
            Workload::Plain { .. } | Workload::LegacyPlain { .. } => None,
        };
        Ok(Self {
            head: head(target, framing, true).map_err(|e| e.to_string())?,
            call,
            complete,
            retry,
            timeout,
        })
    }

    /// Sends request `id` with `body` on `connection` and checks the
    /// JSON-RPC response to it with `check`.
    async fn send<T>(
        &self,
        connection: &mut Connection,
        id: u64,
        body: &[u8],
        check: impl FnOnce(&Reply<'_>) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let sent = call(connection, self.timeout, &self.head, id, body, check).await;
        sent.map(|(checked, _)| checked)
    }
}

/// One connection's loop: units of work until the budget or the deadline
/// runs out. A failed connection is reopened once per unit. The session,
/// if the workload has one, is ended at the end (a failure to end it
/// counts as one error).
async fn worker(
    shared: Arc<Shared>,
    mut connection: Connection,
    worker: u64,
    (session, requests): (Option<String>, Requests),
    latency_us: Histogram<u64>,
) -> Tally {
    let mut tally = Tally {
        ok: 0,
        errors: 0,
        first_failure: None,
        latency_us,
        last_answer: None,
    };
    let per_unit = shared.workload.requests_per_unit();
    let mut next_id = worker << 32;
    let mut body = Vec::with_capacity(1024);
    loop {
        let now = Instant::now();
        if now >= shared.deadline {
            break;
        }
        let measured = now >= shared.measure_from;
        if measured {
            let claimed = shared.claimed.fetch_add(per_unit, Ordering::Relaxed);
            if claimed >= shared.plan.max_requests {
                break;
            }
        }
        if let Err(failure) = reopen(&mut connection, &shared.target).await {
            tally.fail(per_unit, failure);
            break;
        }
        next_id += 1;
        let started = Instant::now();
        requests.call.fill(&mut body, next_id, "");
        let Some((key, retry)) = &requests.retry else {
            let done = requests.send(&mut connection, next_id, &body, requests.complete);
            tally.count(done.await, started, measured);
            continue;
        };
        let asked = |reply: &Reply<'_>| wire::expect_input_required(reply, key);
        let state = match requests.send(&mut connection, next_id, &body, asked).await {
            Ok(state) => state,
            Err(failure) => {
                tally.fail(2 * u64::from(measured), failure);
                continue;
            }
        };
        tally.record(started, measured);
        next_id += 1;
        let started = Instant::now();
        retry.fill(&mut body, next_id, &state);
        let done = requests.send(&mut connection, next_id, &body, requests.complete);
        tally.count(done.await, started, measured);
    }
    if let Some(session) = &session {
        if let Err(failure) = reopen(&mut connection, &shared.target).await {
            tally.fail(1, failure);
            return tally;
        }
        if let Err(failure) = close_session(
            &mut connection,
            &shared.target,
            shared.plan.timeout,
            session,
        )
        .await
        {
            tally.fail(1, failure);
        }
    }
    tally
}

/// Runs `workload` against `target` as `plan` says.
pub(crate) async fn run(target: Target, workload: Workload, plan: Plan) -> Result<Outcome, String> {
    if plan.concurrency == 0 {
        return Err("the concurrency must be at least 1".to_owned());
    }
    // All connections (and their sessions) are open before the clock starts.
    let mut workers = Vec::with_capacity(plan.concurrency);
    for index in 0..plan.concurrency {
        let mut connection = connect_patiently(&target)
            .await
            .map_err(|e| format!("cannot open connection {index} to {}: {e}", target.addr))?;
        let session = if workload.in_session() {
            let id = (index as u64) << 32;
            let session = open_session(&mut connection, &target, plan.timeout, id)
                .await
                .map_err(|e| format!("cannot open a session on connection {index}: {e}"))?;
            Some(session)
        } else {
            None
        };
        let requests = Requests::new(&target, &workload, session.as_deref(), plan.timeout)?;
        workers.push((connection, (session, requests), histogram()?));
    }
    let start = Instant::now();
    let measure_from = start + plan.warmup;
    let shared = Arc::new(Shared {
        deadline: measure_from + plan.duration,
        measure_from,
        claimed: AtomicU64::new(0),
        target,
        workload,
        plan,
    });
    // The host's steal time from the end of the warm-up to the end.
    let steal_at_start = tokio::spawn(async move {
        tokio::time::sleep_until(measure_from.into()).await;
        steal_ms()
    });
    let tasks: Vec<_> = workers
        .into_iter()
        .zip(0u64..)
        .map(|((connection, session, latency), index)| {
            tokio::spawn(worker(
                Arc::clone(&shared),
                connection,
                index,
                session,
                latency,
            ))
        })
        .collect();
    let mut latency_us = histogram()?;
    let (mut ok, mut errors, mut first_failure, mut last) = (0, 0, None, measure_from);
    for task in tasks {
        let tally = task.await.map_err(|e| format!("a worker failed: {e}"))?;
        ok += tally.ok;
        errors += tally.errors;
        if first_failure.is_none() {
            first_failure = tally.first_failure;
        }
        if let Some(at) = tally.last_answer {
            last = last.max(at);
        }
        latency_us
            .add(&tally.latency_us)
            .map_err(|e| format!("merging histograms: {e}"))?;
    }
    let steal_at_start = steal_at_start
        .await
        .map_err(|e| format!("the steal-time reader failed: {e}"))?;
    let steal_ms = steal_ms()
        .zip(steal_at_start)
        .map(|(end, start)| end.saturating_sub(start));
    Ok(Outcome {
        ok,
        errors,
        first_failure,
        elapsed: last.saturating_duration_since(measure_from),
        latency_us,
        steal_ms,
    })
}
