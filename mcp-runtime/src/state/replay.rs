//! Single use: a guard that accepts each verified state once.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use super::{Clock, SystemClock};
use crate::BoxFuture;

/// The guard could not record the claim. The server fails closed either
/// way: the request is refused and the handler does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayError {
    /// The guard's store could not decide (unreachable, say): the retry is
    /// refused with `-32603`, as the server, not the client, is at fault.
    Unavailable(String),
    /// The guard remembers as many states as it may: the retry is refused
    /// as a replay would be (`-32602`), and the log says why.
    Full {
        /// How many states the guard may remember.
        capacity: usize,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unavailable(why) => write!(f, "replay guard unavailable: {why}"),
            Self::Full { capacity } => write!(
                f,
                "replay guard full: it remembers {capacity} unexpired states, its capacity"
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

/// Remembers which states were used, so each is accepted once.
///
/// Consulted after a state verifies and before the handler runs. A guard
/// shared by a fleet (Redis, a database) makes a state single use across
/// every instance; [`InMemoryReplayGuard`] covers one process.
pub trait ReplayGuard: Send + Sync + 'static {
    /// Claims `fingerprint` until `expires_at` (Unix seconds): `Ok(true)`
    /// the first time, `Ok(false)` on every later call, an error when the
    /// claim cannot be recorded (never `Ok(true)` unrecorded). Must be
    /// atomic.
    fn claim<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        expires_at: u64,
    ) -> BoxFuture<'a, Result<bool, ReplayError>>;
}

/// A replay guard in this process's memory.
///
/// Entries are dropped once the state they remember has expired, and at
/// most [`capacity`](Self::capacity) are kept: when that many unexpired
/// states are remembered, a new claim fails with [`ReplayError::Full`]
/// (the retry is refused, never accepted unrecorded). An entry costs about
/// 48 B, up to about 100 B while the table grows; remembering every state
/// used within one TTL takes `rate x TTL` entries (10,000 retries a second
/// with the default 600 s TTL: 6 million, 300 to 600 MB). Beyond what one
/// machine should hold, or for single use across a fleet or a restart,
/// use a shared guard (`RedisReplayGuard`, cargo feature `redis`): a restart
/// forgets this one.
pub struct InMemoryReplayGuard {
    seen: Mutex<Seen>,
    clock: Arc<dyn Clock>,
    capacity: usize,
}

struct Seen {
    entries: HashMap<[u8; 32], u64>,
    /// The size at which expired entries are swept next.
    sweep_at: usize,
    /// No entry expires before this (the last sweep's earliest, lowered by
    /// each claim since): while full, no sweep runs before it, so a full
    /// table is not scanned on every claim.
    next_expiry: u64,
}

/// States remembered when the machine's memory cannot be read.
const FALLBACK_CAPACITY: usize = 1 << 20;

/// The default capacity of an [`InMemoryReplayGuard`]: as many entries as
/// fit, at 128 B each, in 1/64 of the machine's memory (from
/// `/proc/meminfo`), at least 65,536 and at most 16 Mi; 1 Mi where the
/// memory cannot be read. 8 GiB of memory gives 1 Mi entries.
pub fn default_replay_capacity() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|meminfo| mem_total_bytes(&meminfo))
        .map_or(FALLBACK_CAPACITY, |bytes| {
            usize::try_from(bytes / 64 / 128)
                .unwrap_or(usize::MAX)
                .clamp(1 << 16, 1 << 24)
        })
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn mem_total_bytes(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut parts = line["MemTotal:".len()..].split_whitespace();
    let kib: u64 = parts.next()?.parse().ok()?;
    (parts.next() == Some("kB")).then(|| kib.saturating_mul(1024))
}

impl InMemoryReplayGuard {
    /// A guard on the system clock, of the default capacity
    /// ([`default_replay_capacity`]).
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// A guard on `clock` (use the signer's clock), of the default
    /// capacity.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self {
            seen: Mutex::new(Seen {
                entries: HashMap::new(),
                sweep_at: 1024,
                next_expiry: 0,
            }),
            clock,
            capacity: default_replay_capacity(),
        }
    }

    /// The most unexpired states remembered at once (at least 1).
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// How many states are remembered right now.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// True when no state is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Seen {
    /// Drops the entries expired at `now`; notes the earliest expiry left.
    fn sweep(&mut self, now: u64) {
        let mut earliest = u64::MAX;
        self.entries.retain(|_, expiry| {
            let keep = *expiry > now;
            if keep {
                earliest = earliest.min(*expiry);
            }
            keep
        });
        self.next_expiry = earliest;
        self.sweep_at = (self.entries.len() * 2).max(1024);
    }
}

impl Default for InMemoryReplayGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for InMemoryReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryReplayGuard")
            .field("remembered", &self.len())
            .finish()
    }
}

impl ReplayGuard for InMemoryReplayGuard {
    fn claim<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        expires_at: u64,
    ) -> BoxFuture<'a, Result<bool, ReplayError>> {
        let now = self.clock.now();
        let mut seen = self.lock();
        let full = seen.entries.len() >= self.capacity;
        if seen.entries.len() >= seen.sweep_at || (full && now >= seen.next_expiry) {
            seen.sweep(now);
        }
        let outcome = match seen.entries.get(fingerprint) {
            Some(expiry) if *expiry > now => Ok(false),
            // Expired: claimed again in its own place.
            Some(_) => Ok(true),
            None if seen.entries.len() >= self.capacity => Err(ReplayError::Full {
                capacity: self.capacity,
            }),
            None => Ok(true),
        };
        if outcome == Ok(true) {
            seen.entries.insert(*fingerprint, expires_at);
            seen.next_expiry = seen.next_expiry.min(expires_at);
        }
        Box::pin(std::future::ready(outcome))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_total_is_read_in_bytes() {
        let meminfo = "MemTotal:        8000000 kB\nMemFree:  1 kB\n";
        assert_eq!(mem_total_bytes(meminfo), Some(8_192_000_000));
        assert_eq!(mem_total_bytes("MemTotal: 12 MB"), None);
        assert_eq!(mem_total_bytes(""), None);
        let capacity = default_replay_capacity();
        assert!(((1 << 16)..=(1 << 24)).contains(&capacity), "{capacity}");
    }
}
