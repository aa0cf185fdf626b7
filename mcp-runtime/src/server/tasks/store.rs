//! Where task records live: the [`TaskStore`] trait, and the in-memory
//! store every server has by default.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Mutex;

use super::record::{TaskRecord, now_ms};
use crate::BoxFuture;

/// Keeps task records. Every instance of a fleet that shares one store
/// (such as `RedisTaskStore`) can read, answer, cancel and run the next
/// round of a task another instance created.
///
/// A store forgets a record at its [`expires_ms`](TaskRecord::expires_ms)
/// and bounds how many unfinished tasks one owner holds.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new record, unless it is unfinished and its owner already
    /// holds `max_live` unfinished tasks ([`TaskStoreError::Full`]), or the
    /// store is full.
    fn create<'a>(
        &'a self,
        record: &'a TaskRecord,
        max_live: usize,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>>;

    /// The record of `id`, if it exists and has not expired.
    fn load<'a>(&'a self, id: &'a str)
    -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Replaces the stored record with `record` if the stored one's version
    /// is `record.version - 1`: `Ok(false)` when another change came first
    /// (or the record is gone), and the caller reads it again.
    fn replace<'a>(&'a self, record: &'a TaskRecord)
    -> BoxFuture<'a, Result<bool, TaskStoreError>>;
}

/// Why a store could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskStoreError {
    /// A bound was reached: the owner's unfinished tasks, or the store's
    /// capacity.
    Full(String),
    /// The store could not be reached or answered wrongly.
    Unavailable(String),
}

impl std::fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Full(why) => write!(f, "the task store is full: {why}"),
            Self::Unavailable(why) => write!(f, "the task store is unavailable: {why}"),
        }
    }
}

impl std::error::Error for TaskStoreError {}

/// The default bound on the records an [`InMemoryTaskStore`] holds.
#[doc(hidden)]
pub const DEFAULT_TASK_CAPACITY: usize = 10_000;

/// Task records in this process: tasks survive neither a restart nor a
/// move to another instance. Bounded: at most 10,000
/// records; expired ones are dropped, soonest first, on every creation.
#[derive(Debug)]
pub struct InMemoryTaskStore {
    inner: Mutex<Records>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Records {
    by_id: HashMap<String, TaskRecord>,
    /// Each owner's unfinished tasks.
    live: HashMap<String, HashSet<String>>,
    /// Every record by expiry, soonest first, so expired ones go in order.
    by_expiry: BTreeSet<(u64, String)>,
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl InMemoryTaskStore {
    /// A store of at most 10,000 records.
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_TASK_CAPACITY)
    }

    /// A store of at most `capacity` records.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(Records::default()),
            capacity: capacity.max(1),
        }
    }

    /// How many records it holds (expired ones included until swept).
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Records> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Records {
    fn forget(&mut self, id: &str) {
        if let Some(record) = self.by_id.remove(id) {
            self.by_expiry
                .remove(&(record.expires_ms(), record.id.clone()));
            self.settle(&record.owner, id);
        }
    }

    /// `id` no longer counts as one of `owner`'s unfinished tasks.
    fn settle(&mut self, owner: &str, id: &str) {
        if let Some(ids) = self.live.get_mut(owner) {
            ids.remove(id);
            if ids.is_empty() {
                self.live.remove(owner);
            }
        }
    }

    /// Forgets every expired record, soonest first.
    fn sweep(&mut self, now: u64) {
        while let Some((expires, id)) = self.by_expiry.first().cloned() {
            if expires > now {
                break;
            }
            self.by_expiry.pop_first();
            if let Some(record) = self.by_id.remove(&id) {
                self.settle(&record.owner, &id);
            }
        }
    }
}

impl TaskStore for InMemoryTaskStore {
    fn create<'a>(
        &'a self,
        record: &'a TaskRecord,
        max_live: usize,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let mut records = self.lock();
            records.sweep(now_ms());
            if records.by_id.len() >= self.capacity {
                return Err(TaskStoreError::Full(format!(
                    "{} tasks are kept",
                    self.capacity
                )));
            }
            // A record born finished (a call done in its first run) holds
            // no unfinished task, so only the store's capacity bounds it.
            let live = records.live.get(&record.owner).map_or(0, HashSet::len);
            if !record.status.is_terminal() && live >= max_live {
                return Err(TaskStoreError::Full(format!(
                    "the caller already has {live} unfinished tasks"
                )));
            }
            if records.by_id.contains_key(&record.id) {
                return Err(TaskStoreError::Unavailable(
                    "a task with this id exists".to_owned(),
                ));
            }
            if !record.status.is_terminal() {
                records
                    .live
                    .entry(record.owner.clone())
                    .or_default()
                    .insert(record.id.clone());
            }
            records
                .by_expiry
                .insert((record.expires_ms(), record.id.clone()));
            records.by_id.insert(record.id.clone(), record.clone());
            Ok(())
        })
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let mut records = self.lock();
            match records.by_id.get(id) {
                Some(record) if record.expires_ms() <= now_ms() => {
                    records.forget(id);
                    Ok(None)
                }
                found => Ok(found.cloned()),
            }
        })
    }

    fn replace<'a>(
        &'a self,
        record: &'a TaskRecord,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let mut records = self.lock();
            let Some(stored) = records.by_id.get_mut(&record.id) else {
                return Ok(false);
            };
            if stored.version.checked_add(1) != Some(record.version) {
                return Ok(false);
            }
            *stored = record.clone();
            if record.status.is_terminal() {
                records.settle(&record.owner, &record.id);
            }
            Ok(true)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::TaskStatus;

    fn record(id: &str, owner: &str) -> TaskRecord {
        TaskRecord::new(id, owner, "t", 60_000)
    }

    fn block<T>(future: BoxFuture<'_, T>) -> T {
        futures_util::FutureExt::now_or_never(future).expect("the in-memory store never waits")
    }

    #[test]
    fn replace_is_compare_and_swap() {
        let store = InMemoryTaskStore::new();
        let first = record("a", "ada");
        block(store.create(&first, 10)).unwrap();
        let mut next = first.clone();
        next.version = 2;
        next.status = TaskStatus::InputRequired;
        assert_eq!(block(store.replace(&next)), Ok(true));
        // A change made from the stale version 1 loses.
        let mut stale = first.clone();
        stale.version = 2;
        stale.status = TaskStatus::Cancelled;
        assert_eq!(block(store.replace(&stale)), Ok(false));
        let stored = block(store.load("a")).unwrap().unwrap();
        assert_eq!(stored.status, TaskStatus::InputRequired);
    }

    #[test]
    fn an_owner_holds_at_most_max_live_unfinished_tasks() {
        let store = InMemoryTaskStore::new();
        block(store.create(&record("a", "ada"), 2)).unwrap();
        block(store.create(&record("b", "ada"), 2)).unwrap();
        assert!(matches!(
            block(store.create(&record("c", "ada"), 2)),
            Err(TaskStoreError::Full(_))
        ));
        // A record born finished holds no unfinished task: the cap lets it in.
        let mut born_done = record("z", "ada");
        born_done.finish(TaskStatus::Completed, now_ms());
        block(store.create(&born_done, 2)).unwrap();
        // Someone else is not limited by ada's tasks.
        block(store.create(&record("d", "bob"), 2)).unwrap();
        // A finished task no longer counts.
        let mut done = block(store.load("a")).unwrap().unwrap();
        done.version += 1;
        done.finish(TaskStatus::Completed, now_ms());
        assert_eq!(block(store.replace(&done)), Ok(true));
        block(store.create(&record("c", "ada"), 2)).unwrap();
    }

    #[test]
    fn expired_records_are_gone_and_make_room() {
        let store = InMemoryTaskStore::with_capacity(1);
        let mut old = record("a", "ada");
        old.created_ms = 0;
        block(store.create(&old, 10)).unwrap();
        assert_eq!(block(store.load("a")), Ok(None));
        block(store.create(&old, 10)).unwrap();
        // Full of an expired record: swept to make room.
        block(store.create(&record("b", "ada"), 10)).unwrap();
        assert!(matches!(
            block(store.create(&record("c", "bob"), 10)),
            Err(TaskStoreError::Full(_))
        ));
    }
}
