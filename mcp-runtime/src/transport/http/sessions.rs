//! The 2025-era sessions of one endpoint, by `MCP-Session-Id`: bounded in
//! number, expired when idle, each owned by the caller that opened it.
//!
//! A session is busy while one of its requests runs or its standalone
//! stream is open, and idle otherwise; an idle session expires after the
//! idle timeout. When the table is full, opening a session evicts the one
//! idle the longest; if none is idle, the new session is refused.
//!
//! Each session has its [`Driver`], which runs its requests (and cancels
//! them) and takes its client's responses and notifications.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use super::resume::{EventLog, Logs};
use crate::budget::MemoryBudget;
use crate::server::Session;
use crate::transport::session::Driver;

/// The most detached streams a session keeps for its client to resume;
/// a newer one drops the oldest.
const MAX_KEPT_LOGS: usize = 8;

/// The sessions of one endpoint.
pub(super) struct Sessions {
    entries: Mutex<Table>,
    max: usize,
    idle_timeout: Duration,
}

#[derive(Default)]
struct Table {
    by_id: HashMap<String, Entry>,
    last_sweep: Option<Instant>,
}

/// An open session, as a message naming it finds it.
#[derive(Clone)]
pub(super) struct Open {
    /// The session.
    pub(super) session: Session,
    /// What runs its requests and takes its client's messages.
    pub(super) driver: Arc<Driver>,
}

struct Entry {
    open: Open,
    /// The subject of the caller that opened it (`""` without authentication).
    owner: String,
    /// When it was last used or stopped being busy.
    last_seen: Instant,
    /// Requests running and streams open.
    busy: usize,
    /// Whether its standalone (`GET`) stream is open.
    stream_open: bool,
    /// The number of its next event stream.
    next_stream: u64,
    /// Its detached streams, oldest first.
    logs: VecDeque<Arc<EventLog>>,
}

/// The table is full of busy sessions.
#[derive(Debug)]
pub(super) struct Full;

impl Sessions {
    pub(super) fn new(max: usize, idle_timeout: Duration) -> Self {
        Self {
            entries: Mutex::new(Table::default()),
            max: max.max(1),
            idle_timeout,
        }
    }

    /// The session `id`, if it is open and was opened by `subject`; an
    /// expired one is ended and removed on the way.
    pub(super) fn get(&self, id: &str, subject: &str) -> Option<Open> {
        let now = Instant::now();
        let mut table = self.lock();
        let entry = table.by_id.get_mut(id)?;
        if entry.owner != subject {
            return None;
        }
        if self.expired(entry, now) {
            if let Some(entry) = table.by_id.remove(id) {
                entry.open.session.end();
            }
            return None;
        }
        entry.last_seen = now;
        Some(entry.open.clone())
    }

    /// Adds a session `initialize` opened for `subject`, with a driver of
    /// its own.
    pub(super) fn insert(&self, session: Session, subject: &str) -> Result<(), Full> {
        let now = Instant::now();
        let mut table = self.lock();
        self.sweep_at_most_every_second(&mut table, now);
        if table.by_id.len() >= self.max {
            let oldest_idle = table
                .by_id
                .iter()
                .filter(|(_, e)| e.busy == 0)
                .min_by_key(|(_, e)| e.last_seen)
                .map(|(id, _)| id.clone());
            match oldest_idle.and_then(|id| table.by_id.remove(&id)) {
                Some(evicted) => {
                    tracing::info!(
                        max = self.max,
                        "session table full: ended the session idle the longest"
                    );
                    evicted.open.session.end();
                }
                None => return Err(Full),
            }
        }
        table.by_id.insert(
            session.id().to_owned(),
            Entry {
                open: Open {
                    driver: Arc::new(Driver::in_session(session.clone())),
                    session,
                },
                owner: subject.to_owned(),
                last_seen: now,
                busy: 0,
                stream_open: false,
                next_stream: 1,
                logs: VecDeque::new(),
            },
        );
        Ok(())
    }

    /// Ends and removes the session `id` (`DELETE`); `false` if there is none.
    pub(super) fn remove(&self, id: &str, subject: &str) -> bool {
        let mut table = self.lock();
        match table.by_id.get(id) {
            Some(entry) if entry.owner == subject => {}
            _ => return false,
        }
        match table.by_id.remove(id) {
            Some(entry) => {
                entry.open.session.end();
                true
            }
            None => false,
        }
    }

    /// Marks the session busy until the guard drops (a request runs).
    pub(super) fn begin(self: &Arc<Self>, id: &str) -> Busy {
        let mut table = self.lock();
        if let Some(entry) = table.by_id.get_mut(id) {
            entry.busy += 1;
        }
        Busy {
            sessions: Arc::clone(self),
            id: id.to_owned(),
            stream: false,
        }
    }

    /// Opens the session's standalone stream: busy until the guard drops;
    /// `None` when one is already open.
    pub(super) fn open_stream(self: &Arc<Self>, id: &str) -> Option<Busy> {
        let mut table = self.lock();
        let entry = table.by_id.get_mut(id)?;
        if entry.stream_open {
            return None;
        }
        entry.stream_open = true;
        entry.busy += 1;
        Some(Busy {
            sessions: Arc::clone(self),
            id: id.to_owned(),
            stream: true,
        })
    }

    /// The detached stream `stream` of session `id`, if it is kept.
    pub(super) fn log(&self, id: &str, stream: u64) -> Option<Arc<EventLog>> {
        let table = self.lock();
        let entry = table.by_id.get(id)?;
        entry.logs.iter().find(|l| l.stream() == stream).cloned()
    }

    /// The streams of session `id`, numbered and kept here, their events
    /// charged to `budget`.
    pub(super) fn logs_of(self: &Arc<Self>, id: &str, budget: &MemoryBudget) -> Arc<dyn Logs> {
        Arc::new(SessionLogs {
            sessions: Arc::clone(self),
            id: id.to_owned(),
            budget: budget.clone(),
        })
    }

    /// Ends and removes every expired session.
    pub(super) fn sweep(&self) {
        let now = Instant::now();
        let mut table = self.lock();
        self.sweep_table(&mut table, now);
    }

    /// Ends every session (the server is shutting down).
    pub(super) fn end_all(&self) {
        let mut table = self.lock();
        for (_, entry) in table.by_id.drain() {
            entry.open.session.end();
        }
    }

    /// How many sessions are open.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    fn sweep_at_most_every_second(&self, table: &mut Table, now: Instant) {
        if table
            .last_sweep
            .is_some_and(|last| now.duration_since(last) < Duration::from_secs(1))
        {
            return;
        }
        self.sweep_table(table, now);
    }

    fn sweep_table(&self, table: &mut Table, now: Instant) {
        table.last_sweep = Some(now);
        let before = table.by_id.len();
        table.by_id.retain(|_, entry| {
            let keep = !self.expired(entry, now);
            if !keep {
                entry.open.session.end();
            }
            keep
        });
        let expired = before - table.by_id.len();
        if expired > 0 {
            tracing::debug!(expired, "idle sessions expired");
        }
    }

    fn expired(&self, entry: &Entry, now: Instant) -> bool {
        entry.busy == 0 && now.duration_since(entry.last_seen) >= self.idle_timeout
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The event streams of one session.
struct SessionLogs {
    sessions: Arc<Sessions>,
    id: String,
    budget: MemoryBudget,
}

impl Logs for SessionLogs {
    fn budget(&self) -> &MemoryBudget {
        &self.budget
    }

    fn next_stream(&self) -> u64 {
        let mut table = self.sessions.lock();
        match table.by_id.get_mut(&self.id) {
            Some(entry) => {
                let n = entry.next_stream;
                entry.next_stream += 1;
                n
            }
            // Ended meanwhile: any number does, nothing can resume it.
            None => 0,
        }
    }

    fn keep(&self, log: Arc<EventLog>) {
        let mut table = self.sessions.lock();
        if let Some(entry) = table.by_id.get_mut(&self.id) {
            if entry.logs.len() >= MAX_KEPT_LOGS {
                entry.logs.pop_front();
            }
            entry.logs.push_back(log);
        }
    }
}

/// A session kept busy (a request runs, or its stream is open).
pub(super) struct Busy {
    sessions: Arc<Sessions>,
    id: String,
    stream: bool,
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut table = self.sessions.lock();
        if let Some(entry) = table.by_id.get_mut(&self.id) {
            entry.busy = entry.busy.saturating_sub(1);
            entry.last_seen = Instant::now();
            if self.stream {
                entry.stream_open = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ClientCapabilities;

    fn session(sessions: &Sessions, owner: &str) -> Session {
        let session = Session::open(
            "2025-11-25",
            ClientCapabilities::default(),
            None,
            crate::budget::Held::none(),
        );
        sessions.insert(session.clone(), owner).unwrap();
        session
    }

    #[tokio::test(start_paused = true)]
    async fn idle_sessions_expire_and_busy_ones_do_not() {
        let sessions = Arc::new(Sessions::new(10, Duration::from_secs(60)));
        let idle = session(&sessions, "");
        let busy = session(&sessions, "");
        let guard = sessions.begin(busy.id());
        tokio::time::advance(Duration::from_secs(61)).await;
        sessions.sweep();
        assert!(idle.is_ended());
        assert!(sessions.get(idle.id(), "").is_none());
        assert!(sessions.get(busy.id(), "").is_some());
        drop(guard);
        tokio::time::advance(Duration::from_secs(61)).await;
        assert!(sessions.get(busy.id(), "").is_none(), "expired once idle");
        assert!(busy.is_ended());
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_table_evicts_the_longest_idle_or_refuses() {
        let sessions = Arc::new(Sessions::new(2, Duration::from_secs(600)));
        let first = session(&sessions, "");
        tokio::time::advance(Duration::from_secs(1)).await;
        let second = session(&sessions, "");
        let third = session(&sessions, "");
        assert!(first.is_ended(), "the longest idle was evicted");
        assert_eq!(sessions.len(), 2);
        let _a = sessions.begin(second.id());
        let _b = sessions.begin(third.id());
        let fourth = Session::open(
            "2025-11-25",
            ClientCapabilities::default(),
            None,
            crate::budget::Held::none(),
        );
        assert!(sessions.insert(fourth, "").is_err(), "none idle: refused");
    }

    #[tokio::test]
    async fn a_session_belongs_to_who_opened_it() {
        let sessions = Arc::new(Sessions::new(2, Duration::from_secs(600)));
        let mine = session(&sessions, "alice");
        assert!(sessions.get(mine.id(), "mallory").is_none());
        assert!(!sessions.remove(mine.id(), "mallory"));
        assert!(sessions.get(mine.id(), "alice").is_some());
        assert!(sessions.remove(mine.id(), "alice"));
        assert!(mine.is_ended());
    }

    #[tokio::test]
    async fn one_standalone_stream_per_session() {
        let sessions = Arc::new(Sessions::new(2, Duration::from_secs(600)));
        let s = session(&sessions, "");
        let stream = sessions.open_stream(s.id()).unwrap();
        assert!(sessions.open_stream(s.id()).is_none());
        drop(stream);
        assert!(sessions.open_stream(s.id()).is_some());
    }
}
