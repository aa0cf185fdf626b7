//! What both programs of this package read about processes and the
//! machine: resident memory and the host's steal time from `/proc`, and the
//! Tokio runtime they measure with.

/// The peak resident set (`VmHWM`, KiB) of process `pid`.
pub(crate) fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status_kb(&status, "VmHWM:")
}

/// The resident set now (`VmRSS`, KiB) of process `pid`.
#[allow(dead_code)] // used by mcp-loadgen only
pub(crate) fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status_kb(&status, "VmRSS:")
}

/// The `field` (with its colon) of `/proc/PID/status`, in KiB.
pub(crate) fn status_kb(status: &str, field: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse().ok())
}

/// `/proc/stat`'s clock ticks per second (`USER_HZ`): 100 on every Linux
/// architecture this bench runs on (x86-64, aarch64).
#[allow(dead_code)] // used by mcp-loadgen only
const USER_HZ: u64 = 100;

/// The CPU time, in ms, that the host has taken from this machine's CPUs
/// since boot, summed over them (`steal` on `/proc/stat`'s `cpu` line): in
/// a virtual machine, time a CPU wanted to run and the hypervisor ran
/// something else. Read before and after a cell, it tells a stall of ours
/// from one of the host. `None` where there is no such file or field.
#[allow(dead_code)] // used by mcp-loadgen only
pub(crate) fn steal_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    steal_ticks(&stat).map(|ticks| ticks * 1000 / USER_HZ)
}

/// The `steal` field (the eighth number) of the `cpu` line of `stat`.
#[allow(dead_code)] // used by mcp-loadgen only
fn steal_ticks(stat: &str) -> Option<u64> {
    let line = stat.lines().find(|line| line.starts_with("cpu "))?;
    line.split_ascii_whitespace().nth(8)?.parse().ok()
}

/// A current-thread runtime for one thread, a multi-thread one otherwise.
pub(crate) fn runtime(threads: usize) -> Result<tokio::runtime::Runtime, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields_are_read_in_kib() {
        let status = "Name:\tx\nVmHWM:\t  1234 kB\nVmRSS:\t   999 kB\n";
        assert_eq!(status_kb(status, "VmHWM:"), Some(1234));
        assert_eq!(status_kb(status, "VmRSS:"), Some(999));
        assert_eq!(status_kb(status, "VmSwap:"), None);
        assert!(peak_rss_kb(std::process::id()).is_some_and(|kb| kb > 0));
        assert!(rss_kb(std::process::id()).is_some_and(|kb| kb > 0));
    }

    #[test]
    fn steal_is_the_eighth_number_of_the_cpu_line() {
        let stat = "cpu  10 0 20 300 4 0 5 37 0 0\ncpu0 5 0 10 150 2 0 3 19 0 0\n";
        assert_eq!(steal_ticks(stat), Some(37));
        assert_eq!(steal_ticks("cpu  10 0 20 300\n"), None);
        assert_eq!(steal_ticks("intr 1 2 3\n"), None);
    }
}
