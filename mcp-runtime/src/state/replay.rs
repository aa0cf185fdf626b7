//! Single use: a guard that accepts each verified state once.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use super::{Clock, SystemClock};
use crate::BoxFuture;

/// The guard could not decide (e.g. its store is unreachable). The server
/// fails closed: the request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayError(pub String);

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "replay guard unavailable: {}", self.0)
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
    /// the first time, `Ok(false)` on every later call. Must be atomic.
    fn claim<'a>(
        &'a self,
        fingerprint: &'a [u8; 32],
        expires_at: u64,
    ) -> BoxFuture<'a, Result<bool, ReplayError>>;
}

/// A replay guard in this process's memory. Entries are dropped once the
/// state they remember has expired, so memory is bounded by the number of
/// states used within one TTL.
pub struct InMemoryReplayGuard {
    seen: Mutex<Seen>,
    clock: Arc<dyn Clock>,
}

struct Seen {
    entries: HashMap<[u8; 32], u64>,
    sweep_at: usize,
}

impl InMemoryReplayGuard {
    /// A guard on the system clock.
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// A guard on `clock` (use the signer's clock).
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self {
            seen: Mutex::new(Seen {
                entries: HashMap::new(),
                sweep_at: 1024,
            }),
            clock,
        }
    }

    /// How many states are remembered right now.
    pub fn len(&self) -> usize {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entries
            .len()
    }

    /// True when no state is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.entries.len() >= seen.sweep_at {
            seen.entries.retain(|_, expiry| *expiry > now);
            seen.sweep_at = (seen.entries.len() * 2).max(1024);
        }
        let first = match seen.entries.get(fingerprint) {
            Some(expiry) if *expiry > now => false,
            _ => {
                seen.entries.insert(*fingerprint, expires_at);
                true
            }
        };
        Box::pin(std::future::ready(Ok(first)))
    }
}
