//! `mcp-client-bench`: measures our client (`mcp_runtime::client`) against
//! a server on this machine. One [`Client`] is connected, then
//! `--concurrency` tasks share it, each calling `tools/call` of `--tool`
//! (default `test_simple_text`, no arguments) one call after another: for
//! `--warmup` seconds unmeasured (default 1), then for `--duration`
//! seconds (default 5). It prints one JSON line: calls, errors, calls/s,
//! p50/p99/max latency in microseconds, and this process's peak RSS
//! (`VmHWM` of `/proc/self/status`, in KiB, the connection and warm-up
//! included).
//!
//! ```text
//! mcp-client-bench --url http://127.0.0.1:PORT/mcp --concurrency N
//!                  [--era auto|2025] [--duration SECS] [--warmup SECS]
//!                  [--timeout SECS] [--threads N] [--tool NAME] [--client NAME]
//! ```
//!
//! `--era auto` (the default) lets the client find the era: against our
//! server it speaks 2026-07-28. `--era 2025` pins a 2025-era session
//! (`ClientBuilder::pin_era(Era::Legacy)`), the era rmcp's client speaks
//! by default. `--threads 1` (the default) runs everything on one
//! current-thread Tokio runtime. The rmcp twin of this program is
//! `bench/peers/src/bin/rmcp-client-bench.rs`; both print the same line.
//! Only loopback URLs are accepted, and every bound has a ceiling.

use std::net::IpAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use mcp_runtime::client::{Client, Era};

mod process;

use process::{peak_rss_kb, runtime};

/// The command line, for errors.
const USAGE: &str = "usage:
  mcp-client-bench --url http://127.0.0.1:PORT/mcp --concurrency N
                   [--era auto|2025] [--duration SECS] [--warmup SECS]
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
    /// `None` finds the era; `Some(Era::Legacy)` pins a 2025-era session.
    era: Option<Era>,
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
    let mut client = "ours".to_owned();
    let mut era = None;
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
            "--client" => client = value()?.to_owned(),
            "--era" => {
                era = match value()? {
                    "auto" => None,
                    "2025" => Some(Era::Legacy),
                    other => return Err(format!("--era: {other:?} is not auto or 2025")),
                }
            }
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
        client,
        era,
        concurrency: concurrency.ok_or_else(|| format!("--concurrency is required\n{USAGE}"))?,
        duration,
        warmup,
        timeout,
        threads,
        tool,
    })
}

/// What the calling tasks measured, together.
struct Outcome {
    /// Calls that completed without error inside the measured window.
    ok: u64,
    /// Calls that failed inside it.
    errors: u64,
    /// The first failure, for the error message.
    first_failure: Option<String>,
    /// From the start of the window to the end of its last call.
    elapsed: Duration,
    /// Latency of the successful calls, in microseconds.
    latency_us: Histogram<u64>,
}

/// What one calling task measured.
struct TaskOutcome {
    ok: u64,
    errors: u64,
    first_failure: Option<String>,
    last_end: Instant,
    latency_us: Histogram<u64>,
}

/// An empty latency histogram (1 µs to one minute, 3 significant digits).
fn histogram() -> Result<Histogram<u64>, String> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).map_err(|e| format!("histogram: {e}"))
}

/// Runs `concurrency` tasks on the shared `client`, each calling `tool`
/// until the window ends, and gathers what they measured. A call counts
/// when it starts inside the window (after the warm-up).
async fn measure(client: Arc<Client>, options: &Options) -> Result<Outcome, String> {
    let window_start = Instant::now() + options.warmup;
    let window_end = window_start + options.duration;
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..options.concurrency {
        let client = Arc::clone(&client);
        let tool = options.tool.clone();
        let timeout = options.timeout;
        let mut outcome = TaskOutcome {
            ok: 0,
            errors: 0,
            first_failure: None,
            last_end: window_start,
            latency_us: histogram()?,
        };
        tasks.spawn(async move {
            loop {
                let start = Instant::now();
                if start >= window_end {
                    break;
                }
                let called = tokio::time::timeout(timeout, client.call_tool(&tool, None)).await;
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
                outcome.last_end = end;
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
    let mut total = Outcome {
        ok: 0,
        errors: 0,
        first_failure: None,
        elapsed: Duration::ZERO,
        latency_us: histogram()?,
    };
    while let Some(joined) = tasks.join_next().await {
        let task = joined.map_err(|e| format!("a calling task failed: {e}"))?;
        total.ok += task.ok;
        total.errors += task.errors;
        if total.first_failure.is_none() {
            total.first_failure = task.first_failure;
        }
        total.elapsed = total
            .elapsed
            .max(task.last_end.duration_since(window_start));
        total
            .latency_us
            .add(&task.latency_us)
            .map_err(|e| format!("histogram: {e}"))?;
    }
    Ok(total)
}

/// Connects, measures and prints the result line.
fn run(options: Options) -> Result<(), String> {
    let runtime = runtime(options.threads)?;
    let (outcome, protocol) = runtime.block_on(async {
        let mut builder = Client::http(options.url.clone()).request_timeout(options.timeout);
        if let Some(era) = options.era {
            builder = builder.pin_era(era);
        }
        let client = builder
            .connect()
            .await
            .map_err(|e| format!("cannot connect to {}: {e}", options.url))?;
        let protocol = client.protocol_version();
        let client = Arc::new(client);
        let outcome = measure(Arc::clone(&client), &options).await?;
        if let Ok(client) = Arc::try_unwrap(client) {
            client.close().await;
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
        "peak_rss_kb": peak_rss_kb(std::process::id()),
    });
    if let Some(failure) = &outcome.first_failure {
        eprintln!(
            "mcp-client-bench: {} failed call(s); the first: {failure}",
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
            eprintln!("mcp-client-bench: {message}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn options_are_bounded() {
        let parse_with = |extra: &[&str]| {
            let mut args = strings(&["--url", "http://127.0.0.1:1/mcp"]);
            args.extend(strings(extra));
            parse(&args)
        };
        let options = parse_with(&["--concurrency", "16"]).unwrap();
        assert_eq!(options.concurrency, 16);
        assert_eq!(options.era, None);
        assert_eq!(options.tool, "test_simple_text");
        let legacy = parse_with(&["--concurrency", "1", "--era", "2025"]).unwrap();
        assert_eq!(legacy.era, Some(Era::Legacy));
        assert!(parse_with(&[]).is_err(), "the concurrency is required");
        assert!(parse_with(&["--concurrency", "0"]).is_err());
        assert!(parse_with(&["--concurrency", "1025"]).is_err());
        assert!(parse_with(&["--concurrency", "1", "--era", "2024"]).is_err());
        assert!(parse_with(&["--concurrency", "1", "--duration", "0"]).is_err());
        assert!(parse_with(&["--concurrency", "1", "--warmup", "0"]).is_ok());
        assert!(parse_with(&["--concurrency", "1", "--duration", "nan"]).is_err());
    }

    #[test]
    fn only_loopback_urls() {
        assert!(loopback_url("http://127.0.0.1:8080/mcp").is_ok());
        assert!(loopback_url("http://localhost/mcp").is_ok());
        assert!(loopback_url("http://[::1]:9/mcp").is_ok());
        assert!(loopback_url("http://10.0.0.1:8080/mcp").is_err());
        assert!(loopback_url("https://127.0.0.1/mcp").is_err());
        assert!(loopback_url("http://example.com/mcp").is_err());
    }

    #[test]
    fn peak_rss_is_read() {
        assert!(peak_rss_kb(std::process::id()).is_some_and(|kb| kb > 0));
    }
}
