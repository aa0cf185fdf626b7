//! What both programs of this package read about processes: resident
//! memory from `/proc`, and the Tokio runtime they measure with.

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
}
