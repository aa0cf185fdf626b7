//! `mcp-loadgen`: drives an MCP server over streamable HTTP on this machine,
//! as 2026-07-28 clients or as 2025-era clients in sessions, and reports
//! requests/s, p50/p99 latency and the server's peak RSS; or measures the
//! server's memory per idle 2025-era session.
//!
//! ```text
//! mcp-loadgen run --url http://127.0.0.1:PORT/mcp --workload plain|two-round|legacy-plain
//!                 --concurrency N [--requests N] [--duration SECS] [--warmup SECS]
//!                 [--timeout SECS] [--threads N] [--server NAME] [--server-pid PID]
//!                 [--plain-tool NAME] [--flow-tool NAME] [--flow-key KEY] [--flow-answer JSON]
//! mcp-loadgen sessions --url http://127.0.0.1:PORT/mcp --server-pid PID --count N
//!                 [--connections N] [--timeout SECS] [--settle SECS] [--server NAME]
//! mcp-loadgen report [--ours NAME] FILE...
//! ```
//!
//! `run` opens `--concurrency` keep-alive connections and sends, on each,
//! one unit after another: for `plain`, a `tools/call` of `--plain-tool`
//! (default `test_simple_text`); for `two-round`, a call of `--flow-tool`
//! (default `test_input_required_result_request_state`) that must come back
//! `input_required` with a `requestState` and an input request under
//! `--flow-key` (default `confirm`), then the retry with `--flow-answer`
//! under that key and the echoed state, which must complete; for
//! `legacy-plain`, the call of `plain` as a 2025-era client makes it: each
//! connection first opens a session (`initialize` at 2025-11-25, then
//! `notifications/initialized`, answered 202; not measured), and each call
//! carries `MCP-Session-Id` and `MCP-Protocol-Version` and no `_meta`, and
//! must complete without `resultType`; each session ends with `DELETE`
//! (200) after the run. Answers may be
//! JSON or SSE. After `--warmup` seconds (default 1, not measured) it
//! measures until `--requests` HTTP requests (default 20000) or
//! `--duration` seconds (default 5) run out, whichever comes first, and
//! prints one result line (see `report`); with `--server-pid` it reads the
//! server's VmHWM from `/proc/PID/status`. Only loopback addresses are
//! accepted, and every bound has a ceiling.
//!
//! `sessions` opens `--count` 2025-era sessions (at most 100000) over
//! `--connections` connections (default 8) and leaves them open, reading
//! the server's `VmRSS` before, halfway and after, and prints one line with
//! the bytes per idle session (see `idle.rs`).
//!
//! `report` reads result lines from files (or `-` for stdin) and prints
//! the markdown tables (see `report.rs`).

mod http1;
mod idle;
mod load;
mod process;
mod report;
mod target;
mod wire;

use std::process::ExitCode;
use std::time::Duration;

use serde_json::Value;

use crate::load::{Plan, Workload};
use crate::process::{peak_rss_kb, rss_kb, runtime};
use crate::report::Cell;

/// The command line, for errors.
const USAGE: &str = "usage:
  mcp-loadgen run --url http://127.0.0.1:PORT/mcp --workload plain|two-round|legacy-plain
                  --concurrency N [--requests N] [--duration SECS] [--warmup SECS]
                  [--timeout SECS] [--threads N] [--server NAME] [--server-pid PID]
                  [--plain-tool NAME] [--flow-tool NAME] [--flow-key KEY] [--flow-answer JSON]
  mcp-loadgen sessions --url http://127.0.0.1:PORT/mcp --server-pid PID --count N
                  [--connections N] [--timeout SECS] [--settle SECS] [--server NAME]
  mcp-loadgen report [--ours NAME] FILE...";

/// The most connections a run may open.
const MAX_CONCURRENCY: usize = 4096;
/// The most requests a run may measure.
const MAX_REQUESTS: u64 = 100_000_000;
/// The longest a run may measure, or warm up, in seconds.
const MAX_SECONDS: f64 = 600.0;
/// The most sessions `sessions` may open.
const MAX_SESSIONS: usize = 100_000;
/// The most connections `sessions` may open them over.
const MAX_SESSION_CONNECTIONS: usize = 256;

/// The options of `run`.
struct RunOptions {
    /// The endpoint, loopback only.
    url: String,
    /// The server's name in the result line.
    server: String,
    /// What each unit sends.
    workload: Workload,
    /// The bounds.
    plan: Plan,
    /// Load generator threads.
    threads: usize,
    /// The server process, for its peak RSS.
    server_pid: Option<u32>,
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
fn count<T: std::str::FromStr + PartialOrd + From<u8> + std::fmt::Display>(
    flag: &str,
    value: &str,
    max: T,
) -> Result<T, String> {
    match value.parse::<T>() {
        Ok(n) if n >= T::from(1) && n <= max => Ok(n),
        _ => Err(format!(
            "{flag}: {value:?} is not a whole number from 1 to {max}"
        )),
    }
}

/// Reads the options of `run`, checking every bound.
fn parse_run(args: &[String]) -> Result<RunOptions, String> {
    let mut url = None;
    let mut server = "server".to_owned();
    let mut workload = None;
    let mut concurrency = None;
    let mut max_requests = 20_000;
    let mut duration = Duration::from_secs(5);
    let mut warmup = Duration::from_secs(1);
    let mut timeout = Duration::from_secs(10);
    let mut threads = 1;
    let mut server_pid = None;
    let mut plain_tool = "test_simple_text".to_owned();
    let mut flow_tool = "test_input_required_result_request_state".to_owned();
    let mut flow_key = "confirm".to_owned();
    let mut flow_answer: Value = serde_json::json!({"action": "accept", "content": {"ok": true}});
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .map(String::as_str)
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--url" => url = Some(value()?.to_owned()),
            "--server" => server = value()?.to_owned(),
            "--workload" => workload = Some(value()?.to_owned()),
            "--concurrency" => concurrency = Some(count(flag, value()?, MAX_CONCURRENCY)?),
            "--requests" => max_requests = count(flag, value()?, MAX_REQUESTS)?,
            "--duration" => duration = seconds(flag, value()?, false)?,
            "--warmup" => warmup = seconds(flag, value()?, true)?,
            "--timeout" => timeout = seconds(flag, value()?, false)?,
            "--threads" => threads = count(flag, value()?, 64)?,
            "--server-pid" => server_pid = Some(count(flag, value()?, u32::MAX)?),
            "--plain-tool" => plain_tool = value()?.to_owned(),
            "--flow-tool" => flow_tool = value()?.to_owned(),
            "--flow-key" => flow_key = value()?.to_owned(),
            "--flow-answer" => {
                let text = value()?;
                flow_answer = serde_json::from_str(text)
                    .map_err(|e| format!("--flow-answer: not JSON: {e}"))?;
            }
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    let workload = match workload.as_deref() {
        Some("plain") => Workload::Plain { tool: plain_tool },
        Some("two-round") => Workload::TwoRound {
            tool: flow_tool,
            key: flow_key,
            answer: flow_answer,
        },
        Some("legacy-plain") => Workload::LegacyPlain { tool: plain_tool },
        Some(other) => {
            return Err(format!(
                "--workload: {other:?} is not plain, two-round or legacy-plain"
            ));
        }
        None => return Err(format!("--workload is required\n{USAGE}")),
    };
    Ok(RunOptions {
        url: url.ok_or_else(|| format!("--url is required\n{USAGE}"))?,
        server,
        workload,
        plan: Plan {
            concurrency: concurrency
                .ok_or_else(|| format!("--concurrency is required\n{USAGE}"))?,
            max_requests,
            duration,
            warmup,
            timeout,
        },
        threads,
        server_pid,
    })
}

/// `run`: measures, then prints the result line.
fn run(options: RunOptions) -> Result<(), String> {
    let runtime = runtime(options.threads)?;
    let workload_name = options.workload.name();
    let concurrency = options.plan.concurrency;
    let outcome = runtime.block_on(async {
        let target = target::resolve(&options.url).await?;
        load::run(target, options.workload, options.plan).await
    })?;
    let seconds = outcome.elapsed.as_secs_f64();
    let cell = Cell {
        server: options.server,
        workload: workload_name.to_owned(),
        concurrency: concurrency as u64,
        ok: outcome.ok,
        errors: outcome.errors,
        seconds,
        rps: if seconds > 0.0 {
            outcome.ok as f64 / seconds
        } else {
            0.0
        },
        p50_us: outcome.latency_us.value_at_quantile(0.50),
        p99_us: outcome.latency_us.value_at_quantile(0.99),
        max_us: outcome.latency_us.max(),
        rss_kb: options.server_pid.and_then(peak_rss_kb),
        steal_ms: outcome.steal_ms,
    };
    if let Some(failure) = &outcome.first_failure {
        eprintln!(
            "mcp-loadgen: {} failed request(s) against {}; the first: {failure}",
            outcome.errors, cell.server
        );
    }
    println!("{}", cell.to_line());
    if outcome.ok == 0 {
        return Err("no request succeeded".to_owned());
    }
    Ok(())
}

/// The options of `sessions`.
struct SessionsOptions {
    /// The endpoint, loopback only.
    url: String,
    /// The server's name in the result line.
    server: String,
    /// The server process, whose `VmRSS` is read.
    server_pid: u32,
    /// What to open, and how.
    plan: idle::Plan,
}

/// Reads the options of `sessions`, checking every bound.
fn parse_sessions(args: &[String]) -> Result<SessionsOptions, String> {
    let mut url = None;
    let mut server = "server".to_owned();
    let mut server_pid = None;
    let mut count_of_sessions = None;
    let mut connections = 8;
    let mut timeout = Duration::from_secs(10);
    let mut settle = Duration::from_millis(500);
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .map(String::as_str)
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--url" => url = Some(value()?.to_owned()),
            "--server" => server = value()?.to_owned(),
            "--server-pid" => server_pid = Some(count(flag, value()?, u32::MAX)?),
            "--count" => count_of_sessions = Some(count(flag, value()?, MAX_SESSIONS)?),
            "--connections" => connections = count(flag, value()?, MAX_SESSION_CONNECTIONS)?,
            "--timeout" => timeout = seconds(flag, value()?, false)?,
            "--settle" => settle = seconds(flag, value()?, true)?,
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(SessionsOptions {
        url: url.ok_or_else(|| format!("--url is required\n{USAGE}"))?,
        server,
        server_pid: server_pid
            .ok_or_else(|| format!("--server-pid is required (its VmRSS is read)\n{USAGE}"))?,
        plan: idle::Plan {
            count: count_of_sessions.ok_or_else(|| format!("--count is required\n{USAGE}"))?,
            connections,
            timeout,
            settle,
        },
    })
}

/// `sessions`: measures, then prints the result line.
fn sessions(options: SessionsOptions) -> Result<(), String> {
    let runtime = runtime(1)?;
    let pid = options.server_pid;
    let readings = runtime.block_on(async {
        let target = target::resolve(&options.url).await?;
        idle::run(target, &options.plan, || rss_kb(pid)).await
    })?;
    println!("{}", readings.to_line(&options.server, &options.plan));
    Ok(())
}

/// `report`: prints the markdown tables of the result lines in the files.
fn report(args: &[String]) -> Result<(), String> {
    let mut ours = "ours".to_owned();
    let mut files = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--ours" => {
                ours = args.next().ok_or("--ours needs a server name")?.to_owned();
            }
            file => files.push(file.to_owned()),
        }
    }
    if files.is_empty() {
        return Err(format!("report needs at least one file\n{USAGE}"));
    }
    let mut cells = Vec::new();
    for file in &files {
        let text = if file == "-" {
            std::io::read_to_string(std::io::stdin())
        } else {
            std::fs::read_to_string(file)
        }
        .map_err(|e| format!("{file}: {e}"))?;
        cells.extend(text.lines().filter_map(Cell::parse));
    }
    if cells.is_empty() {
        return Err("no result lines found".to_owned());
    }
    print!("{}", report::markdown(&cells, &ours));
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.split_first() {
        Some((command, rest)) if command == "run" => parse_run(rest).and_then(run),
        Some((command, rest)) if command == "sessions" => parse_sessions(rest).and_then(sessions),
        Some((command, rest)) if command == "report" => report(rest),
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcp-loadgen: {message}");
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
    fn run_options_are_bounded() {
        let base = ["--url", "http://127.0.0.1:1/mcp", "--workload", "plain"];
        let parse = |extra: &[&str]| {
            let mut args = strings(&base);
            args.extend(strings(extra));
            parse_run(&args)
        };
        let options = parse(&["--concurrency", "16"]).unwrap();
        assert_eq!(options.plan.concurrency, 16);
        assert_eq!(options.plan.max_requests, 20_000);
        assert!(parse(&[]).is_err(), "the concurrency is required");
        assert!(parse(&["--concurrency", "0"]).is_err());
        assert!(parse(&["--concurrency", "5000"]).is_err());
        assert!(parse(&["--concurrency", "1", "--duration", "0"]).is_err());
        assert!(parse(&["--concurrency", "1", "--duration", "601"]).is_err());
        assert!(parse(&["--concurrency", "1", "--duration", "inf"]).is_err());
        assert!(parse(&["--concurrency", "1", "--warmup", "0"]).is_ok());
        assert!(parse(&["--concurrency", "1", "--requests", "0"]).is_err());
        assert!(parse(&["--concurrency", "1", "--flow-answer", "{"]).is_err());
        let mut flow = strings(&[
            "--url",
            "u",
            "--workload",
            "two-round",
            "--concurrency",
            "2",
        ]);
        flow.extend(strings(&["--flow-key", "k"]));
        match parse_run(&flow).unwrap().workload {
            Workload::TwoRound { key, .. } => assert_eq!(key, "k"),
            _ => panic!("not the flow"),
        }
        let legacy = strings(&[
            "--url",
            "u",
            "--workload",
            "legacy-plain",
            "--concurrency",
            "2",
            "--plain-tool",
            "t",
        ]);
        match parse_run(&legacy).unwrap().workload {
            Workload::LegacyPlain { tool } => assert_eq!(tool, "t"),
            _ => panic!("not legacy-plain"),
        }
        let other = strings(&["--url", "u", "--workload", "legacy", "--concurrency", "2"]);
        assert!(parse_run(&other).is_err());
    }

    #[test]
    fn sessions_options_are_bounded() {
        let base = ["--url", "http://127.0.0.1:1/mcp", "--server-pid", "1"];
        let parse = |extra: &[&str]| {
            let mut args = strings(&base);
            args.extend(strings(extra));
            parse_sessions(&args)
        };
        let options = parse(&["--count", "5000"]).unwrap();
        assert_eq!(options.plan.count, 5000);
        assert_eq!(options.plan.connections, 8);
        assert!(parse(&[]).is_err(), "the count is required");
        assert!(parse(&["--count", "0"]).is_err());
        assert!(parse(&["--count", "100001"]).is_err());
        assert!(parse(&["--count", "10", "--connections", "257"]).is_err());
        assert!(parse(&["--count", "10", "--settle", "0"]).is_ok());
        let no_pid = strings(&["--url", "u", "--count", "10"]);
        assert!(parse_sessions(&no_pid).is_err(), "the pid is required");
    }
}
