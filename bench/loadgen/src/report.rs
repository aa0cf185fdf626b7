//! Result lines and the markdown report built from them.
//!
//! `run` prints one line per measured cell: tab-separated `key=value`
//! pairs (`server`, `workload`, `concurrency`, `ok`, `errors`, `seconds`,
//! `rps`, `p50_us`, `p99_us`, `max_us`, `rss_kb`, `steal_ms`). `report` reads such
//! lines (other lines are ignored), takes the median of repeated cells,
//! and prints the tables: every cell, the ratios of `ours` to each other
//! server, and the targets of the [bench] issue (and, when `legacy-plain`
//! ran, the 2025-era call against the 2026-07-28 one).

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One measured cell.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cell {
    /// Which server (`ours`, `limit`, `rmcp`).
    pub(crate) server: String,
    /// Which workload (`plain`, `two-round`).
    pub(crate) workload: String,
    /// Open connections.
    pub(crate) concurrency: u64,
    /// Successful requests.
    pub(crate) ok: u64,
    /// Failed requests.
    pub(crate) errors: u64,
    /// Measured seconds.
    pub(crate) seconds: f64,
    /// Successful requests per second.
    pub(crate) rps: f64,
    /// Median latency, µs.
    pub(crate) p50_us: u64,
    /// 99th percentile latency, µs.
    pub(crate) p99_us: u64,
    /// Slowest request, µs.
    pub(crate) max_us: u64,
    /// The server's peak RSS (VmHWM), KiB, when known.
    pub(crate) rss_kb: Option<u64>,
    /// CPU time the host took from this machine while the cell was
    /// measured (`/proc/stat`'s steal, summed over CPUs), ms, when known.
    pub(crate) steal_ms: Option<u64>,
}

impl Cell {
    /// The result line.
    pub(crate) fn to_line(&self) -> String {
        let known = |value: Option<u64>| value.map_or_else(|| "-".to_owned(), |v| v.to_string());
        let (rss, steal) = (known(self.rss_kb), known(self.steal_ms));
        format!(
            "server={}\tworkload={}\tconcurrency={}\tok={}\terrors={}\tseconds={:.3}\trps={:.1}\tp50_us={}\tp99_us={}\tmax_us={}\trss_kb={rss}\tsteal_ms={steal}",
            self.server,
            self.workload,
            self.concurrency,
            self.ok,
            self.errors,
            self.seconds,
            self.rps,
            self.p50_us,
            self.p99_us,
            self.max_us,
        )
    }

    /// Reads a result line; `None` for any other line.
    pub(crate) fn parse(line: &str) -> Option<Self> {
        let fields: BTreeMap<&str, &str> = line
            .split('\t')
            .filter_map(|pair| pair.trim().split_once('='))
            .collect();
        let number = |key: &str| fields.get(key)?.parse::<u64>().ok();
        let real = |key: &str| fields.get(key)?.parse::<f64>().ok();
        Some(Self {
            server: (*fields.get("server")?).to_owned(),
            workload: (*fields.get("workload")?).to_owned(),
            concurrency: number("concurrency")?,
            ok: number("ok")?,
            errors: number("errors")?,
            seconds: real("seconds")?,
            rps: real("rps")?,
            p50_us: number("p50_us")?,
            p99_us: number("p99_us")?,
            max_us: number("max_us")?,
            rss_kb: number("rss_kb"),
            steal_ms: number("steal_ms"),
        })
    }
}

/// The median of `values` (the mean of the middle two for an even count).
fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => values.get(n / 2).copied(),
        _ => Some((values.get(n / 2 - 1)? + values.get(n / 2)?) / 2.0),
    }
}

/// The cells of one server in one (workload, concurrency), summarised.
#[derive(Debug, Clone, PartialEq)]
struct Summary {
    /// Median requests per second.
    rps: f64,
    /// Median p50 latency, ms.
    p50_ms: f64,
    /// Median p99 latency, ms.
    p99_ms: f64,
    /// Median peak RSS, MiB, when known.
    rss_mib: Option<f64>,
    /// Failed requests, summed.
    errors: u64,
    /// How many cells were summarised.
    runs: usize,
    /// The most steal time of one of them, ms, when any was known.
    max_steal_ms: Option<u64>,
    /// How many had at least [`STALL_STEAL_MS`] of steal time.
    stolen_runs: usize,
}

/// Steal time in one cell from which the host, not the server, may have
/// made its slowest requests. On the 2-CPU guest of docs/benchmarks.md, in
/// one `bench/run.sh` run of 216 cells, the 19 whose slowest request took
/// 50 ms or more had 80 to 210 ms of steal, and no other cell had 50 ms.
const STALL_STEAL_MS: u64 = 50;

/// The medians of `cells`; `None` when there are none.
fn summarise(cells: &[&Cell]) -> Option<Summary> {
    let ms = |us: u64| us as f64 / 1000.0;
    let rss: Vec<f64> = cells
        .iter()
        .filter_map(|c| c.rss_kb)
        .map(|kb| kb as f64 / 1024.0)
        .collect();
    Some(Summary {
        rps: median(cells.iter().map(|c| c.rps).collect())?,
        p50_ms: median(cells.iter().map(|c| ms(c.p50_us)).collect())?,
        p99_ms: median(cells.iter().map(|c| ms(c.p99_us)).collect())?,
        rss_mib: median(rss),
        errors: cells.iter().map(|c| c.errors).sum(),
        runs: cells.len(),
        max_steal_ms: cells.iter().filter_map(|c| c.steal_ms).max(),
        stolen_runs: cells
            .iter()
            .filter(|c| c.steal_ms.is_some_and(|ms| ms >= STALL_STEAL_MS))
            .count(),
    })
}

/// Keeps the order in which keys first appear.
fn ordered<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut seen = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen
}

/// `ours / other` with two decimals, or `-` when `other` is not positive.
fn ratio(ours: f64, other: f64) -> String {
    if other > 0.0 {
        format!("{:.2}", ours / other)
    } else {
        "-".to_owned()
    }
}

/// A size in MiB with one decimal, or `-`.
fn mib(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}"))
}

/// The markdown report of `cells`; `ours` is the server the ratios are of.
pub(crate) fn markdown(cells: &[Cell], ours: &str) -> String {
    let workloads = ordered(cells.iter().map(|c| c.workload.clone()));
    let servers = ordered(cells.iter().map(|c| c.server.clone()));
    let mut concurrencies = ordered(cells.iter().map(|c| c.concurrency));
    concurrencies.sort_unstable();
    let mut summaries: BTreeMap<(String, u64, String), Summary> = BTreeMap::new();
    for workload in &workloads {
        for &concurrency in &concurrencies {
            for server in &servers {
                let group: Vec<&Cell> = cells
                    .iter()
                    .filter(|c| {
                        &c.workload == workload
                            && c.concurrency == concurrency
                            && &c.server == server
                    })
                    .collect();
                if let Some(summary) = summarise(&group) {
                    summaries.insert((workload.clone(), concurrency, server.clone()), summary);
                }
            }
        }
    }
    let get = |w: &str, c: u64, s: &str| summaries.get(&(w.to_owned(), c, s.to_owned()));
    let others: Vec<&String> = servers.iter().filter(|s| s.as_str() != ours).collect();

    let mut out = String::new();
    out.push_str("| workload | connections | server | req/s | p50 ms | p99 ms | peak RSS MiB | errors | runs | most host steal ms |\n");
    out.push_str("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for workload in &workloads {
        for &concurrency in &concurrencies {
            for server in &servers {
                if let Some(s) = get(workload, concurrency, server) {
                    let _ = writeln!(
                        out,
                        "| {workload} | {concurrency} | {server} | {:.0} | {:.3} | {:.3} | {} | {} | {} | {} |",
                        s.rps,
                        s.p50_ms,
                        s.p99_ms,
                        mib(s.rss_mib),
                        s.errors,
                        s.runs,
                        s.max_steal_ms
                            .map_or_else(|| "-".to_owned(), |ms| ms.to_string())
                    );
                }
            }
        }
    }

    out.push('\n');
    let mut header = "| workload | connections |".to_owned();
    let mut rule = "|---|---:|".to_owned();
    for other in &others {
        let _ = write!(
            header,
            " req/s {ours}/{other} | p99 {ours}/{other} | RSS {ours}/{other} |"
        );
        rule.push_str("---:|---:|---:|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for workload in &workloads {
        for &concurrency in &concurrencies {
            let Some(mine) = get(workload, concurrency, ours) else {
                continue;
            };
            let mut row = format!("| {workload} | {concurrency} |");
            for other in &others {
                match get(workload, concurrency, other) {
                    Some(theirs) => {
                        let rss = match (mine.rss_mib, theirs.rss_mib) {
                            (Some(a), Some(b)) => ratio(a, b),
                            _ => "-".to_owned(),
                        };
                        let _ = write!(
                            row,
                            " {} | {} | {rss} |",
                            ratio(mine.rps, theirs.rps),
                            ratio(mine.p99_ms, theirs.p99_ms)
                        );
                    }
                    None => row.push_str(" - | - | - |"),
                }
            }
            let _ = writeln!(out, "{row}");
        }
    }

    out.push('\n');
    out.push_str(&targets(&workloads, &concurrencies, ours, &get));
    out
}

/// The targets of the [bench] issue, each met or missed, for the cells
/// present.
fn targets<'a>(
    workloads: &[String],
    concurrencies: &[u64],
    ours: &str,
    get: &dyn Fn(&str, u64, &str) -> Option<&'a Summary>,
) -> String {
    let mut out = String::from("Targets:\n");
    let verdict = |met: bool| if met { "met" } else { "MISSED" };
    let mut line = |text: String| {
        out.push_str("- ");
        out.push_str(&text);
        out.push('\n');
    };
    // The [perf] issue's: the plain call (every mode and driver, labelled
    // `plain`, `plain@wrk`, `plain@shared`, ...) at >= 0.85x the limit, and
    // every workload at >= 1.0x the baseline (an earlier commit).
    for workload in workloads {
        let base = workload.split('@').next().unwrap_or(workload);
        for &c in concurrencies {
            let Some(mine) = get(workload, c, ours) else {
                continue;
            };
            if base == "plain"
                && let Some(limit) = get(workload, c, "limit")
            {
                let r = mine.rps / limit.rps.max(f64::MIN_POSITIVE);
                line(format!(
                    "{workload} req/s >= 0.85x the limit at {c} connections: {r:.2}x, {}",
                    verdict(r >= 0.85)
                ));
            }
            if let Some(baseline) = get(workload, c, "baseline") {
                let r = mine.rps / baseline.rps.max(f64::MIN_POSITIVE);
                line(format!(
                    "{workload} req/s >= 1.0x the baseline at {c} connections: {r:.2}x, {}",
                    verdict(r >= 1.0)
                ));
            }
            if let Some(rss) = mine.rss_mib {
                line(format!(
                    "{workload} peak RSS <= 10 MB at {c} connections: {:.1} MB, {}",
                    rss * 1.048_576,
                    verdict(rss * 1.048_576 <= 10.0)
                ));
            }
        }
    }
    for &c in concurrencies {
        if let (Some(legacy), Some(modern)) = (get("legacy-plain", c, ours), get("plain", c, ours))
        {
            let r = legacy.rps / modern.rps.max(f64::MIN_POSITIVE);
            line(format!(
                "legacy-plain req/s >= 0.8x plain's ({ours}) at {c} connections: {r:.2}x, {}",
                verdict(r >= 0.8)
            ));
        }
    }
    for workload in workloads {
        if let Some(mine) = get(workload, 64, ours) {
            let stolen = match mine.stolen_runs {
                0 => String::new(),
                n => format!(
                    " (the host took {STALL_STEAL_MS} ms or more of CPU in {n} of {} runs)",
                    mine.runs
                ),
            };
            line(format!(
                "{workload} p99 < 5 ms at 64 connections: {:.3} ms, {}{stolen}",
                mine.p99_ms,
                verdict(mine.p99_ms < 5.0)
            ));
        }
    }
    for workload in workloads {
        for &c in concurrencies {
            if let (Some(mine), Some(rmcp)) = (get(workload, c, ours), get(workload, c, "rmcp"))
                && let (Some(a), Some(b)) = (mine.rss_mib, rmcp.rss_mib)
            {
                line(format!(
                    "{workload} peak RSS <= rmcp's at {c} connections: {a:.2} vs {b:.2} MiB, {}",
                    verdict(a <= b)
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(server: &str, workload: &str, concurrency: u64, rps: f64, p99_us: u64) -> Cell {
        Cell {
            server: server.to_owned(),
            workload: workload.to_owned(),
            concurrency,
            ok: 1000,
            errors: 0,
            seconds: 1.0,
            rps,
            p50_us: p99_us / 2,
            p99_us,
            max_us: p99_us * 2,
            rss_kb: Some(10 * 1024),
            steal_ms: None,
        }
    }

    #[test]
    fn lines_round_trip() {
        let c = cell("ours", "plain", 16, 1234.5, 800);
        assert_eq!(Cell::parse(&c.to_line()), Some(c.clone()));
        let no_rss = Cell { rss_kb: None, ..c };
        assert_eq!(Cell::parse(&no_rss.to_line()), Some(no_rss.clone()));
        let stolen = Cell {
            steal_ms: Some(120),
            ..no_rss
        };
        assert_eq!(Cell::parse(&stolen.to_line()), Some(stolen));
        // A line from before steal time was recorded.
        let old = "server=a\tworkload=plain\tconcurrency=1\tok=1\terrors=0\tseconds=1\trps=1\tp50_us=1\tp99_us=1\tmax_us=1\trss_kb=-";
        assert_eq!(Cell::parse(old).and_then(|c| c.steal_ms), None);
        assert!(Cell::parse(old).is_some());
        assert_eq!(Cell::parse("listening on http://127.0.0.1:1/mcp"), None);
    }

    #[test]
    fn a_p99_names_the_runs_the_host_took_cpu_from() {
        let stolen = |steal_ms| Cell {
            steal_ms,
            ..cell("ours", "plain@wrk", 64, 600.0, 70_000)
        };
        let cells = [stolen(Some(STALL_STEAL_MS)), stolen(Some(10)), stolen(None)];
        let report = markdown(&cells, "ours");
        assert!(
            report.contains(
                "plain@wrk p99 < 5 ms at 64 connections: 70.000 ms, MISSED \
                 (the host took 50 ms or more of CPU in 1 of 3 runs)"
            ),
            "{report}"
        );
        assert!(report.contains("| 0 | 3 | 50 |"), "{report}");
        let quiet = markdown(&[stolen(Some(10))], "ours");
        assert!(quiet.contains("70.000 ms, MISSED\n"), "{quiet}");
    }

    #[test]
    fn medians() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }

    #[test]
    fn the_report_has_ratios_and_targets() {
        let cells = [
            cell("ours", "plain", 64, 600.0, 4000),
            cell("limit", "plain", 64, 1000.0, 1000),
            cell("rmcp", "plain", 64, 300.0, 8000),
            cell("ours", "two-round", 64, 300.0, 6000),
            cell("limit", "two-round", 64, 1000.0, 1000),
            cell("ours", "legacy-plain", 64, 540.0, 4000),
            cell("baseline", "two-round", 64, 250.0, 5000),
        ];
        let report = markdown(&cells, "ours");
        assert!(
            report.contains("two-round req/s >= 1.0x the baseline at 64 connections: 1.20x, met"),
            "{report}"
        );
        assert!(report.contains("| plain | 64 | ours | 600 | 2.000 | 4.000 | 10.0 | 0 | 1 | - |"));
        // ours/limit, then ours/rmcp.
        assert!(
            report.contains("| plain | 64 | 0.60 | 4.00 | 1.00 | 2.00 | 0.50 | 1.00 |"),
            "{report}"
        );
        assert!(report.contains("| two-round | 64 | 0.30 | 6.00 | 1.00 | - | - | - |"));
        assert!(
            report.contains("plain req/s >= 0.85x the limit at 64 connections: 0.60x, MISSED"),
            "{report}"
        );
        assert!(
            !report.contains("two-round req/s >= 0.85x the limit"),
            "{report}"
        );
        assert!(report.contains("plain peak RSS <= 10 MB at 64 connections: 10.5 MB, MISSED"));
        assert!(report.contains("two-round p99 < 5 ms at 64 connections: 6.000 ms, MISSED"));
        assert!(
            report.contains("plain peak RSS <= rmcp's at 64 connections: 10.00 vs 10.00 MiB, met")
        );
        assert!(
            report.contains("| legacy-plain | 64 | ours | 540 |"),
            "{report}"
        );
        assert!(report.contains("| legacy-plain | 64 | - | - | - | - | - | - |"));
        assert!(
            report.contains(
                "legacy-plain req/s >= 0.8x plain's (ours) at 64 connections: 0.90x, met"
            )
        );
        let slow = [
            cell("ours", "plain", 1, 1000.0, 400),
            cell("ours", "legacy-plain", 1, 700.0, 500),
        ];
        assert!(
            markdown(&slow, "ours").contains(
                "legacy-plain req/s >= 0.8x plain's (ours) at 1 connections: 0.70x, MISSED"
            )
        );
    }
}
