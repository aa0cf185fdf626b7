//! Where task records live: the [`TaskStore`] trait, and the in-memory
//! store every server has by default.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, OnceLock};

use super::record::{TaskRecord, now_ms};
use crate::BoxFuture;
use crate::budget::{Held, MemoryBudget, json_cost, object_cost};

/// Keeps task records. Every instance of a fleet that shares one store
/// (such as `RedisTaskStore`) can read, answer, cancel and run the next
/// round of a task another instance created.
///
/// A store forgets a record at its [`expires_ms`](TaskRecord::expires_ms).
/// Until then the record counts toward the [`Allowance`] it was created
/// under, whatever its status, so that records that finish at once cannot
/// take the store.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new record, unless `allowance.key` already holds
    /// `allowance.max` records ([`TaskStoreError::OverAllowance`]), its
    /// shared bound is reached ([`TaskStoreError::OverShared`]), or the
    /// store is full ([`TaskStoreError::Full`]).
    fn create<'a>(
        &'a self,
        record: &'a TaskRecord,
        allowance: &'a Allowance,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>>;

    /// The record of `id`, if it exists and has not expired.
    fn load<'a>(&'a self, id: &'a str)
    -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Replaces the stored record with `record` if the stored one's version
    /// is `record.version - 1`: `Ok(false)` when another change came first
    /// (or the record is gone), and the caller reads it again.
    fn replace<'a>(&'a self, record: &'a TaskRecord)
    -> BoxFuture<'a, Result<bool, TaskStoreError>>;

    /// Called once, when the server is built, with its memory budget: a
    /// store that keeps its records in this process charges them to it
    /// (and refuses a record it has no room for as full). A store that
    /// keeps them elsewhere (Redis) ignores it, as by default.
    fn charge_to(&self, budget: &MemoryBudget) {
        let _ = budget;
    }

    /// The record of `id` as `tasks/get` and listen streams show it:
    /// without what only a later round needs (its kept
    /// [`arguments`](TaskRecord::arguments) and [`meta`](TaskRecord::meta)).
    /// By default [`load`](Self::load) with those cleared; a store may
    /// skip copying them.
    fn view<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            Ok(self.load(id).await?.map(|mut record| {
                record.arguments = None;
                record.meta = None;
                record
            }))
        })
    }
}

/// What a new record counts toward, until it expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    /// Who holds the record: an authenticated caller's subject, or for an
    /// unauthenticated client where its requests come from. Only counting
    /// goes by it; who may read the task goes by the record's owner.
    pub key: String,
    /// The most records `key` may hold.
    pub max: usize,
    /// For an unauthenticated client: the most records all unauthenticated
    /// clients together may hold. `None` for an authenticated caller.
    pub shared_max: Option<usize>,
}

/// Why a store could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskStoreError {
    /// The store holds as many records as it may.
    Full(String),
    /// The allowance's key holds this many records, its maximum.
    OverAllowance(usize),
    /// Unauthenticated clients together hold this many records, their
    /// shared maximum.
    OverShared(usize),
    /// The store could not be reached or answered wrongly.
    Unavailable(String),
}

impl std::fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Full(why) => write!(f, "the task store is full: {why}"),
            Self::OverAllowance(held) => write!(f, "the caller holds {held} tasks, its maximum"),
            Self::OverShared(held) => write!(
                f,
                "unauthenticated clients hold {held} tasks, their shared maximum"
            ),
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
    /// The server's memory budget, once the server is built.
    budget: OnceLock<MemoryBudget>,
}

/// A record and what it counts toward.
#[derive(Debug)]
struct Entry {
    record: TaskRecord,
    key: String,
    shared: bool,
    /// The record's charge to the server's memory budget.
    held: Held,
}

#[derive(Debug, Default)]
struct Records {
    by_id: HashMap<String, Entry>,
    /// How many records each allowance key holds.
    held: HashMap<String, usize>,
    /// How many records unauthenticated clients hold together.
    shared: usize,
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
            budget: OnceLock::new(),
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

    /// The record of `id` as `shown` copies it, unless it has expired
    /// (then it is forgotten).
    fn get(&self, id: &str, shown: impl FnOnce(&TaskRecord) -> TaskRecord) -> Option<TaskRecord> {
        let mut records = self.lock();
        match records.by_id.get(id) {
            Some(entry) if entry.record.expires_ms() <= now_ms() => {
                records.forget(id);
                None
            }
            found => found.map(|entry| shown(&entry.record)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Records> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Records {
    fn forget(&mut self, id: &str) {
        if let Some(entry) = self.by_id.remove(id) {
            self.by_expiry
                .remove(&(entry.record.expires_ms(), entry.record.id.clone()));
            self.release(&entry);
        }
    }

    /// `entry` no longer counts toward its allowance.
    fn release(&mut self, entry: &Entry) {
        if let Some(held) = self.held.get_mut(&entry.key) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                self.held.remove(&entry.key);
            }
        }
        if entry.shared {
            self.shared = self.shared.saturating_sub(1);
        }
    }

    /// Forgets every expired record, soonest first.
    fn sweep(&mut self, now: u64) {
        while let Some((expires, id)) = self.by_expiry.first().cloned() {
            if expires > now {
                break;
            }
            self.by_expiry.pop_first();
            if let Some(entry) = self.by_id.remove(&id) {
                self.release(&entry);
            }
        }
    }

    /// Whether `allowance` has room for one more record.
    fn admit(&self, allowance: &Allowance) -> Result<(), TaskStoreError> {
        let held = self.held.get(&allowance.key).copied().unwrap_or(0);
        if held >= allowance.max {
            return Err(TaskStoreError::OverAllowance(held));
        }
        match allowance.shared_max {
            Some(max) if self.shared >= max => Err(TaskStoreError::OverShared(self.shared)),
            _ => Ok(()),
        }
    }
}

/// What a record occupies, estimated from above: its strings, what it
/// keeps of the request and the client's answers, and its result.
fn kept_cost(record: &TaskRecord) -> usize {
    const RECORD: usize = 1024;
    let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    RECORD
        + record.id.len()
        + record.owner.len()
        + record.tool.len()
        + text(&record.arguments)
        + text(&record.meta)
        + object_cost(&record.answers)
        + record.result.as_ref().map_or(0, json_cost)
}

impl TaskStore for InMemoryTaskStore {
    fn charge_to(&self, budget: &MemoryBudget) {
        let _ = self.budget.set(budget.clone());
    }

    fn create<'a>(
        &'a self,
        record: &'a TaskRecord,
        allowance: &'a Allowance,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let mut records = self.lock();
            records.sweep(now_ms());
            records.admit(allowance)?;
            if records.by_id.len() >= self.capacity {
                return Err(TaskStoreError::Full(format!(
                    "{} tasks are kept",
                    self.capacity
                )));
            }
            let held = match self.budget.get() {
                Some(budget) => budget.try_hold(kept_cost(record)).map_err(|over| {
                    TaskStoreError::Full(format!("the server's memory budget is spent ({over})"))
                })?,
                None => Held::none(),
            };
            if records.by_id.contains_key(&record.id) {
                return Err(TaskStoreError::Unavailable(
                    "a task with this id exists".to_owned(),
                ));
            }
            *records.held.entry(allowance.key.clone()).or_default() += 1;
            let shared = allowance.shared_max.is_some();
            if shared {
                records.shared += 1;
            }
            records
                .by_expiry
                .insert((record.expires_ms(), record.id.clone()));
            let entry = Entry {
                record: record.clone(),
                key: allowance.key.clone(),
                shared,
                held,
            };
            records.by_id.insert(record.id.clone(), entry);
            Ok(())
        })
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move { Ok(self.get(id, TaskRecord::clone)) })
    }

    fn view<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move { Ok(self.get(id, TaskRecord::without_kept)) })
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
            if stored.record.version.checked_add(1) != Some(record.version) {
                return Ok(false);
            }
            // The expiry is the stored one's: the sweep finds it by it.
            let expires = stored.record.expires_ms();
            stored.record = record.clone();
            // Best effort: a finished task's record is kept whatever its
            // result costs (the server's own data); its kept input is gone.
            let _ = stored.held.try_resize(kept_cost(record));
            if record.expires_ms() != expires {
                records.by_expiry.remove(&(expires, record.id.clone()));
                records
                    .by_expiry
                    .insert((record.expires_ms(), record.id.clone()));
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

    fn caller(key: &str, max: usize) -> Allowance {
        Allowance {
            key: key.to_owned(),
            max,
            shared_max: None,
        }
    }

    fn anonymous(key: &str, max: usize, shared_max: usize) -> Allowance {
        Allowance {
            key: key.to_owned(),
            max,
            shared_max: Some(shared_max),
        }
    }

    fn block<T>(future: BoxFuture<'_, T>) -> T {
        futures_util::FutureExt::now_or_never(future).expect("the in-memory store never waits")
    }

    #[test]
    fn records_are_charged_to_the_servers_budget_until_they_are_gone() {
        let store = InMemoryTaskStore::new();
        let budget = MemoryBudget::new(8 * 1024);
        store.charge_to(&budget);
        let mut big = record("big", "ada");
        big.arguments = Some("x".repeat(4 * 1024));
        block(store.create(&big, &caller("ada", 10))).unwrap();
        assert!(budget.held() > 4 * 1024, "{budget:?}");
        let mut second = record("second", "ada");
        second.arguments = Some("y".repeat(4 * 1024));
        let refused = block(store.create(&second, &caller("ada", 10)));
        assert!(
            matches!(refused, Err(TaskStoreError::Full(_))),
            "{refused:?}"
        );
        // Finished, its kept input gone: the charge shrinks.
        let mut done = big.clone();
        done.arguments = None;
        done.version += 1;
        assert!(block(store.replace(&done)).unwrap());
        assert!(budget.held() < 2 * 1024, "{budget:?}");
        block(store.create(&second, &caller("ada", 10))).unwrap();
    }

    #[test]
    fn replace_is_compare_and_swap() {
        let store = InMemoryTaskStore::new();
        let first = record("a", "ada");
        block(store.create(&first, &caller("ada", 10))).unwrap();
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
    fn a_view_leaves_the_kept_arguments_and_meta_behind() {
        let store = InMemoryTaskStore::new();
        let mut kept = record("a", "ada");
        kept.arguments = Some("{}".to_owned());
        kept.meta = Some("{}".to_owned());
        block(store.create(&kept, &caller("ada", 10))).unwrap();
        let view = block(store.view("a")).unwrap().unwrap();
        assert_eq!((view.arguments.as_ref(), view.meta.as_ref()), (None, None));
        assert_eq!(view, kept.without_kept());
        assert_eq!(block(store.load("a")).unwrap(), Some(kept));
        assert_eq!(block(store.view("b")), Ok(None));
    }

    #[test]
    fn finished_records_count_toward_the_allowance_until_they_expire() {
        let store = InMemoryTaskStore::new();
        let ada = caller("ada", 2);
        block(store.create(&record("a", "ada"), &ada)).unwrap();
        // A record born finished counts as well.
        let mut born_done = record("b", "ada");
        born_done.finish(TaskStatus::Completed, now_ms());
        block(store.create(&born_done, &ada)).unwrap();
        assert_eq!(
            block(store.create(&record("c", "ada"), &ada)),
            Err(TaskStoreError::OverAllowance(2))
        );
        // Finishing one frees nothing.
        let mut done = block(store.load("a")).unwrap().unwrap();
        done.version += 1;
        done.finish(TaskStatus::Completed, now_ms());
        assert_eq!(block(store.replace(&done)), Ok(true));
        assert_eq!(
            block(store.create(&record("c", "ada"), &ada)),
            Err(TaskStoreError::OverAllowance(2))
        );
        // Someone else is not limited by ada's tasks.
        block(store.create(&record("d", "bob"), &caller("bob", 2))).unwrap();
    }

    #[test]
    fn expiry_gives_the_allowance_back() {
        let store = InMemoryTaskStore::new();
        let ada = caller("ada", 1);
        let mut old = record("a", "ada");
        old.created_ms = now_ms().saturating_sub(old.ttl_ms);
        block(store.create(&old, &ada)).unwrap();
        // Expired, swept on the next creation: ada has room again.
        block(store.create(&record("b", "ada"), &ada)).unwrap();
        assert_eq!(store.len(), 1);
        assert_eq!(
            block(store.create(&record("c", "ada"), &ada)),
            Err(TaskStoreError::OverAllowance(1))
        );
    }

    #[test]
    fn unauthenticated_clients_share_a_bound_that_leaves_room_for_callers() {
        let store = InMemoryTaskStore::with_capacity(4);
        block(store.create(&record("a", ""), &anonymous("ip:10.0.0.1", 1, 2))).unwrap();
        assert_eq!(
            block(store.create(&record("b", ""), &anonymous("ip:10.0.0.1", 1, 2))),
            Err(TaskStoreError::OverAllowance(1))
        );
        block(store.create(&record("c", ""), &anonymous("ip:10.0.0.2", 1, 2))).unwrap();
        assert_eq!(
            block(store.create(&record("d", ""), &anonymous("ip:10.0.0.3", 1, 2))),
            Err(TaskStoreError::OverShared(2))
        );
        // Authenticated callers still find room, up to the capacity.
        block(store.create(&record("e", "ada"), &caller("ada", 5))).unwrap();
        block(store.create(&record("f", "bob"), &caller("bob", 5))).unwrap();
        assert!(matches!(
            block(store.create(&record("g", "cy"), &caller("cy", 5))),
            Err(TaskStoreError::Full(_))
        ));
    }

    #[test]
    fn expired_records_are_gone_and_make_room() {
        let store = InMemoryTaskStore::with_capacity(1);
        let ada = caller("ada", 10);
        let mut old = record("a", "ada");
        old.created_ms = 0;
        block(store.create(&old, &ada)).unwrap();
        assert_eq!(block(store.load("a")), Ok(None));
        block(store.create(&old, &ada)).unwrap();
        // Full of an expired record: swept to make room.
        block(store.create(&record("b", "ada"), &ada)).unwrap();
        assert!(matches!(
            block(store.create(&record("c", "bob"), &caller("bob", 10))),
            Err(TaskStoreError::Full(_))
        ));
    }
}
