//! Time for expiry, as a trait so tests can set it instead of sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of the current time in whole seconds since the Unix epoch.
pub trait Clock: Send + Sync + 'static {
    /// Seconds since 1970-01-01T00:00:00Z.
    fn now(&self) -> u64;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }
}

/// A clock that only moves when told to: for tests and simulations.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: AtomicU64,
}

impl ManualClock {
    /// A clock reading `now` seconds since the epoch, shared behind an `Arc`.
    pub fn at(now: u64) -> Arc<Self> {
        Arc::new(Self {
            now: AtomicU64::new(now),
        })
    }

    /// Sets the time.
    pub fn set(&self, now: u64) {
        self.now.store(now, Ordering::SeqCst);
    }

    /// Moves the time forward by `seconds`.
    pub fn advance(&self, seconds: u64) {
        self.now.fetch_add(seconds, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }
}

impl<C: Clock> Clock for Arc<C> {
    fn now(&self) -> u64 {
        (**self).now()
    }
}
