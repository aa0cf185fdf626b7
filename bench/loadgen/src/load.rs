//! The load itself: `concurrency` keep-alive HTTP/1.1 connections, each
//! driven by one task that sends its requests one after another. Every run
//! is bounded by a request budget and a deadline, and each request by a
//! timeout.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

use crate::target::Target;
use crate::wire::{self, Failure};

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
}

impl Workload {
    /// The HTTP requests one unit sends.
    fn requests_per_unit(&self) -> u64 {
        match self {
            Self::Plain { .. } => 1,
            Self::TwoRound { .. } => 2,
        }
    }

    /// The name used in reports.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Self::Plain { .. } => "plain",
            Self::TwoRound { .. } => "two-round",
        }
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
async fn connect(target: &Target) -> Result<SendRequest<Full<Bytes>>, Failure> {
    let stream = TcpStream::connect(target.addr)
        .await
        .map_err(|e| Failure::Transport(format!("connect: {e}")))?;
    stream
        .set_nodelay(true)
        .map_err(|e| Failure::Transport(format!("nodelay: {e}")))?;
    let (sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| Failure::Transport(format!("handshake: {e}")))?;
    tokio::spawn(async move {
        // Ends when the sender is dropped or the server closes.
        let _ = connection.await;
    });
    Ok(sender)
}

/// Opens a connection, trying up to [`CONNECT_ATTEMPTS`] times 100 ms
/// apart (a server that has just started may refuse one now and then).
async fn connect_patiently(target: &Target) -> Result<SendRequest<Full<Bytes>>, Failure> {
    let mut attempt = 1;
    loop {
        match connect(target).await {
            Ok(sender) => return Ok(sender),
            Err(failure) if attempt >= CONNECT_ATTEMPTS => return Err(failure),
            Err(_) => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Sends one `tools/call` and returns the JSON-RPC response to it.
async fn send(
    sender: &mut SendRequest<Full<Bytes>>,
    shared: &Shared,
    id: u64,
    tool: &str,
    body: Vec<u8>,
) -> Result<Value, Failure> {
    let request = Request::builder()
        .method(Method::POST)
        .uri(shared.target.path.as_str())
        .header(HOST, shared.target.authority.as_str())
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, wire::ACCEPT)
        .header("mcp-protocol-version", wire::PROTOCOL_VERSION)
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| Failure::Transport(format!("request: {e}")))?;
    let exchange = async {
        sender
            .ready()
            .await
            .map_err(|e| Failure::Transport(format!("not ready: {e}")))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| Failure::Transport(format!("send: {e}")))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| Failure::Transport(format!("body: {e}")))?
            .to_bytes();
        Ok::<_, Failure>((status, content_type, body))
    };
    let (status, content_type, body) = tokio::time::timeout(shared.plan.timeout, exchange)
        .await
        .map_err(|_| Failure::Transport("timed out".to_owned()))??;
    if status != 200 {
        return Err(Failure::Status(status));
    }
    wire::response_message(&content_type, &body, id).ok_or(Failure::NoResponse)
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

/// One connection's loop: units of work until the budget or the deadline
/// runs out. A failed connection is reopened once per unit.
async fn worker(
    shared: Arc<Shared>,
    mut sender: SendRequest<Full<Bytes>>,
    worker: u64,
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
        if sender.is_closed() {
            match connect(&shared.target).await {
                Ok(fresh) => sender = fresh,
                Err(failure) => {
                    tally.fail(per_unit, failure);
                    break;
                }
            }
        }
        match &shared.workload {
            Workload::Plain { tool } => {
                next_id += 1;
                let started = Instant::now();
                let body = wire::tools_call(next_id, tool, None);
                match send(&mut sender, &shared, next_id, tool, body)
                    .await
                    .and_then(|message| wire::expect_complete(&message))
                {
                    Ok(()) => tally.record(started, measured),
                    Err(failure) => tally.fail(u64::from(measured), failure),
                }
            }
            Workload::TwoRound { tool, key, answer } => {
                next_id += 1;
                let started = Instant::now();
                let body = wire::tools_call(next_id, tool, None);
                let state = match send(&mut sender, &shared, next_id, tool, body)
                    .await
                    .and_then(|message| wire::expect_input_required(&message, key))
                {
                    Ok(state) => state,
                    Err(failure) => {
                        tally.fail(2 * u64::from(measured), failure);
                        continue;
                    }
                };
                tally.record(started, measured);
                next_id += 1;
                let responses = serde_json::json!({ key.as_str(): answer });
                let started = Instant::now();
                let body = wire::tools_call(next_id, tool, Some((&responses, &state)));
                match send(&mut sender, &shared, next_id, tool, body)
                    .await
                    .and_then(|message| wire::expect_complete(&message))
                {
                    Ok(()) => tally.record(started, measured),
                    Err(failure) => tally.fail(u64::from(measured), failure),
                }
            }
        }
    }
    tally
}

/// Runs `workload` against `target` as `plan` says.
pub(crate) async fn run(target: Target, workload: Workload, plan: Plan) -> Result<Outcome, String> {
    if plan.concurrency == 0 {
        return Err("the concurrency must be at least 1".to_owned());
    }
    // All connections are open before the clock starts.
    let mut workers = Vec::with_capacity(plan.concurrency);
    for index in 0..plan.concurrency {
        let sender = connect_patiently(&target)
            .await
            .map_err(|e| format!("cannot open connection {index} to {}: {e}", target.addr))?;
        workers.push((sender, histogram()?));
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
    let tasks: Vec<_> = workers
        .into_iter()
        .zip(0u64..)
        .map(|((sender, latency), index)| {
            tokio::spawn(worker(Arc::clone(&shared), sender, index, latency))
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
    Ok(Outcome {
        ok,
        errors,
        first_failure,
        elapsed: last.saturating_duration_since(measure_from),
        latency_us,
    })
}
