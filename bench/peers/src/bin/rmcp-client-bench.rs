//! `rmcp-client-bench`: the official Rust SDK's client, rmcp 3.x, measured
//! exactly as `mcp-client-bench` measures ours (`bench/loadgen`). One client
//! service is connected over rmcp's streamable HTTP client transport, then
//! `--concurrency` tasks share it, each calling `tools/call` of `--tool`
//! (default `test_simple_text`, no arguments) one call after another: for
//! `--warmup` seconds unmeasured (default 1), then for `--duration` seconds
//! (default 5). It prints the same JSON line: calls, errors, calls/s,
//! p50/p99/max latency in microseconds, and this process's peak RSS
//! (`VmHWM` of `/proc/self/status`, in KiB).
//!
//! ```text
//! rmcp-client-bench --url http://127.0.0.1:PORT/mcp --concurrency N
//!                   [--era 2025|2026] [--pooled] [--duration SECS] [--warmup SECS]
//!                   [--timeout SECS] [--threads N] [--tool NAME] [--client NAME]
//! ```
//!
//! `--era 2025` (the default) opens a 2025-era session (`initialize` at
//! 2025-11-25, rmcp's `ServiceExt::serve`); `--era 2026` starts with
//! `server/discover` at 2026-07-28 (`ClientLifecycleMode::Discover`).
//! By default the transport is built with `StreamableHttpClientTransport::from_config`,
//! whose HTTP client keeps no idle connections (rmcp's choice, against
//! delayed-ACK stalls), so every call opens a TCP connection; `--pooled`
//! hands it a plain `reqwest::Client`, which keeps them alive, as ours does.
//! Every other transport setting is rmcp's default (at most 16 POSTs in
//! flight). Only loopback URLs are accepted.

use std::net::IpAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ServiceExt};

/// The command line, for errors.
const USAGE: &str = "usage:
  rmcp-client-bench --url http://127.0.0.1:PORT/mcp --concurrency N
                    [--era 2025|2026] [--pooled] [--duration SECS] [--warmup SECS]
                    [--timeout SECS] [--threads N] [--tool NAME] [--client NAME]";

/// The most concurrent calls.
const MAX_CONCURRENCY: usize = 1024;
/// The longest a run may measure, or warm up, in seconds.
const MAX_SECONDS: f64 = 600.0;
/// The highest latency the histogram holds, in microseconds (one minute).
const MAX_LATENCY_US: u64 = 60_000_000;

/// What to measure, and how.
struct Options {
    /// The endpoint, loopback only.
    url: String,
    /// The client's name in the result line.
    client: String,
    /// True: `server/discover` at 2026-07-28; false: a 2025-era session.
    modern: bool,
    /// A pooling `reqwest::Client` instead of rmcp's default one.
    pooled: bool,
    /// Calls in flight at once, sharing the one client.
    concurrency: usize,
    /// Measured time.
    duration: Duration,
    /// Unmeasured time before it.
    warmup: Duration,
    /// The bound on one call.
    timeout: Duration,
    /// Tokio worker threads (1: a current-thread runtime).
    threads: usize,
    /// The tool called.
    tool: String,
}

/// A number of seconds within `(0, MAX_SECONDS]` (or 0 when `zero_ok`).
fn seconds(flag: &str, value: &str, zero_ok: bool) -> Result<Duration, String> {
    match value.parse::<f64>() {
        Ok(s) if s.is_finite() && s <= MAX_SECONDS && (s > 0.0 || (zero_ok && s == 0.0)) => {
            Ok(Duration::from_secs_f64(s))
        }
        _ => Err(format!(
            "{flag}: {value:?} is not a number of seconds up to {MAX_SECONDS}"
        )),
    }
}

/// A whole number within `1..=max`.
fn count(flag: &str, value: &str, max: usize) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "{flag}: {value:?} is not a whole number from 1 to {max}"
        )),
    }
}

/// Accepts `http://HOST[:PORT]/...` whose host is a loopback address or
/// `localhost`.
fn loopback_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url:?}: only http:// URLs are supported"))?;
    let authority = rest.split('/').next().unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    let loopback = host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if loopback {
        Ok(())
    } else {
        Err(format!("{url:?}: only loopback addresses are measured"))
    }
}

/// Reads the options, checking every bound.
fn parse(args: &[String]) -> Result<Options, String> {
    let mut url = None;
    let mut client = None;
    let mut modern = false;
    let mut pooled = false;
    let mut concurrency = None;
    let mut duration = Duration::from_secs(5);
    let mut warmup = Duration::from_secs(1);
    let mut timeout = Duration::from_secs(10);
    let mut threads = 1;
    let mut tool = "test_simple_text".to_owned();
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .map(String::as_str)
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--url" => url = Some(value()?.to_owned()),
            "--client" => client = Some(value()?.to_owned()),
            "--era" => {
                modern = match value()? {
                    "2025" => false,
                    "2026" => true,
                    other => return Err(format!("--era: {other:?} is not 2025 or 2026")),
                }
            }
            "--pooled" => pooled = true,
            "--concurrency" => concurrency = Some(count(flag, value()?, MAX_CONCURRENCY)?),
            "--duration" => duration = seconds(flag, value()?, false)?,
            "--warmup" => warmup = seconds(flag, value()?, true)?,
            "--timeout" => timeout = seconds(flag, value()?, false)?,
            "--threads" => threads = count(flag, value()?, 64)?,
            "--tool" => tool = value()?.to_owned(),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    let url = url.ok_or_else(|| format!("--url is required\n{USAGE}"))?;
    loopback_url(&url)?;
    Ok(Options {
        url,
        client: client.unwrap_or_else(|| if pooled { "rmcp-pooled" } else { "rmcp" }.to_owned()),
        modern,
        pooled,
        concurrency: concurrency.ok_or_else(|| format!("--concurrency is required\n{USAGE}"))?,
        duration,
        warmup,
        timeout,
        threads,
        tool,
    })
}

/// The client's handler: answers nothing of its own, and says who it is
/// and which version it asks for in `initialize`.
struct Bench {
    /// What `initialize` (or the 2026-07-28 `_meta`) carries.
    info: ClientConfig,
}

impl ClientHandler for Bench {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}

/// A connected rmcp client.
type Service = RunningService<RoleClient, Bench>;

/// Connects to `options.url` in the era asked for.
async fn connect(options: &Options) -> Result<Service, String> {
    let config = StreamableHttpClientTransportConfig::with_uri(options.url.as_str());
    let transport = if options.pooled {
        StreamableHttpClientTransport::with_client(reqwest::Client::new(), config)
    } else {
        StreamableHttpClientTransport::from_config(config)
    };
    let mut info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("rmcp-client-bench", env!("CARGO_PKG_VERSION")),
    );
    let connected = if options.modern {
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        Bench { info }
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
    } else {
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        Bench { info }.serve(transport).await
    };
    connected.map_err(|e| format!("cannot connect to {}: {e}", options.url))
}

/// What the calling tasks measured, together (or one task alone).
struct Outcome {
    /// Calls that completed without error inside the measured window.
    ok: u64,
    /// Calls that failed inside it.
    errors: u64,
    /// The first failure, for the error message.
    first_failure: Option<String>,
    /// From the start of the window to the end of the last call in it.
    elapsed: Duration,
    /// Latency of the successful calls, in microseconds.
    latency_us: Histogram<u64>,
}

impl Outcome {
    /// Nothing measured yet.
    fn new() -> Result<Self, String> {
        Ok(Self {
            ok: 0,
            errors: 0,
            first_failure: None,
            elapsed: Duration::ZERO,
            latency_us: Histogram::new_with_bounds(1, MAX_LATENCY_US, 3)
                .map_err(|e| format!("histogram: {e}"))?,
        })
    }
}

/// Runs `concurrency` tasks on the shared client, each calling the tool
/// until the window ends, and gathers what they measured. A call counts
/// when it starts inside the window (after the warm-up).
async fn measure(service: &Service, options: &Options) -> Result<Outcome, String> {
    let window_start = Instant::now() + options.warmup;
    let window_end = window_start + options.duration;
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..options.concurrency {
        // The peer is rmcp's cloneable handle on the running client.
        let peer = service.peer().clone();
        let params = CallToolRequestParams::new(options.tool.clone());
        let timeout = options.timeout;
        let mut outcome = Outcome::new()?;
        tasks.spawn(async move {
            loop {
                let start = Instant::now();
                if start >= window_end {
                    break;
                }
                let called = tokio::time::timeout(timeout, peer.call_tool(params.clone())).await;
                let end = Instant::now();
                let failure = match called {
                    Ok(Ok(result))
                        if result.is_error != Some(true) && !result.content.is_empty() =>
                    {
                        None
                    }
                    Ok(Ok(result)) => Some(format!("the tool failed or said nothing: {result:?}")),
                    Ok(Err(error)) => Some(error.to_string()),
                    Err(_) => Some(format!("no answer within {timeout:?}")),
                };
                if start < window_start {
                    continue;
                }
                outcome.elapsed = end.duration_since(window_start);
                match failure {
                    None => {
                        outcome.ok += 1;
                        let micros = u64::try_from(end.duration_since(start).as_micros())
                            .unwrap_or(MAX_LATENCY_US);
                        outcome.latency_us.saturating_record(micros.max(1));
                    }
                    Some(failure) => {
                        outcome.errors += 1;
                        outcome.first_failure.get_or_insert(failure);
                    }
                }
            }
            outcome
        });
    }
    let mut total = Outcome::new()?;
    while let Some(joined) = tasks.join_next().await {
        let task = joined.map_err(|e| format!("a calling task failed: {e}"))?;
        total.ok += task.ok;
        total.errors += task.errors;
        if total.first_failure.is_none() {
            total.first_failure = task.first_failure;
        }
        total.elapsed = total.elapsed.max(task.elapsed);
        total
            .latency_us
            .add(&task.latency_us)
            .map_err(|e| format!("histogram: {e}"))?;
    }
    Ok(total)
}

/// This process's peak resident set (`VmHWM`, KiB).
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse().ok())
}

/// A current-thread runtime for one thread, a multi-thread one otherwise.
fn runtime(threads: usize) -> Result<tokio::runtime::Runtime, String> {
    let mut builder = if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(threads);
        builder
    };
    builder
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
}

/// Connects, measures and prints the result line.
fn run(options: Options) -> Result<(), String> {
    let runtime = runtime(options.threads)?;
    let (outcome, protocol) = runtime.block_on(async {
        let service = connect(&options).await?;
        let protocol = service
            .peer_info()
            .map(|info| info.protocol_version.to_string())
            .unwrap_or_default();
        let outcome = measure(&service, &options).await?;
        // Ends the session (DELETE) and stops the transport's worker.
        if let Err(e) = service.cancel().await {
            eprintln!("rmcp-client-bench: closing the client: {e}");
        }
        Ok::<_, String>((outcome, protocol))
    })?;
    let seconds = outcome.elapsed.as_secs_f64();
    let line = serde_json::json!({
        "client": options.client,
        "protocol": protocol,
        "concurrency": options.concurrency,
        "threads": options.threads,
        "calls": outcome.ok,
        "errors": outcome.errors,
        "seconds": seconds,
        "calls_per_s": if seconds > 0.0 { outcome.ok as f64 / seconds } else { 0.0 },
        "p50_us": outcome.latency_us.value_at_quantile(0.50),
        "p99_us": outcome.latency_us.value_at_quantile(0.99),
        "max_us": outcome.latency_us.max(),
        "peak_rss_kb": peak_rss_kb(),
    });
    if let Some(failure) = &outcome.first_failure {
        eprintln!(
            "rmcp-client-bench: {} failed call(s); the first: {failure}",
            outcome.errors
        );
    }
    println!("{line}");
    if outcome.ok == 0 {
        return Err("no call succeeded".to_owned());
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse(&args).and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rmcp-client-bench: {message}");
            ExitCode::from(2)
        }
    }
}
