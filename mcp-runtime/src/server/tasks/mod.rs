//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a
//! `tools/call` run in the background, on the same handler.
//!
//! A tool says whether it may or must run as a task ([`TaskSupport`](super::handler::TaskSupport)). A
//! `tools/call` to it from a request that declares the extension goes to
//! `start.rs`: the handler's first run happens in the call (asks marked
//! [`Ask::before_task`](super::handler::Ask::before_task) come back as an
//! `InputRequiredResult`, as without tasks); whatever else it returns, or a
//! run that outlasts the creation window, makes a task, stored before the
//! `CreateTaskResult` goes out. A task's questions wait in its record;
//! `tasks/update` (`methods.rs`) collects the answers and, once a round's
//! questions are all answered, runs the handler again on the instance that
//! received it (`run.rs`), with the answers and the state the record kept.
//! The record is the only shared thing, so any instance of a fleet sharing
//! a [`TaskStore`] serves any task.
//!
//! In the source, this room uses `round` (a task's rounds run as any
//! other), `handler` and `gate` (a kept state opened through it); the
//! `methods` and `dispatch` rooms call it.

mod allowance;
mod listen;
mod methods;
mod record;
#[cfg(feature = "redis")]
mod redis;
mod run;
mod start;
mod store;

pub use listen::MAX_WATCHED_TASKS;
pub(crate) use listen::{Watched, watch};
pub(crate) use methods::{cancel, declares_tasks, get, tasks_required, update};
pub use record::{KeptState, Lease, TaskRecord};
#[cfg(feature = "redis")]
pub use redis::{DEFAULT_TASK_KEY_PREFIX, RedisTaskStore};
pub(crate) use start::{TaskCall, call_tool};
pub use store::{Allowance, DEFAULT_TASK_CAPACITY, InMemoryTaskStore, TaskStore, TaskStoreError};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;

/// The default time a task's record is kept after its creation.
#[doc(hidden)]
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);
/// The default poll interval suggested to clients.
#[doc(hidden)]
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// The default time a first run may take before the call becomes a task.
#[doc(hidden)]
pub const DEFAULT_CREATION_WINDOW: Duration = Duration::from_millis(100);
/// The default lease: how long a round may go unconfirmed before its task
/// is failed as abandoned.
#[doc(hidden)]
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);
/// The default time a cancelled round is given to stop by itself before it
/// is dropped.
#[doc(hidden)]
pub const DEFAULT_CANCEL_GRACE: Duration = Duration::from_secs(5);
/// The default bound on the tasks one authenticated caller holds,
/// finished ones included, until they expire.
#[doc(hidden)]
pub const DEFAULT_MAX_TASKS_PER_CALLER: usize = 100;
/// The former name of [`DEFAULT_MAX_TASKS_PER_CALLER`].
#[doc(hidden)]
#[deprecated(note = "finished tasks count too: use DEFAULT_MAX_TASKS_PER_CALLER")]
pub const DEFAULT_MAX_LIVE_PER_CALLER: usize = DEFAULT_MAX_TASKS_PER_CALLER;
/// The default bound on the tasks one unauthenticated client holds,
/// finished ones included, until they expire.
#[doc(hidden)]
pub const DEFAULT_MAX_TASKS_PER_ANONYMOUS_CLIENT: usize = 20;
/// The default bound on the tasks all unauthenticated clients together
/// hold: half of an [`InMemoryTaskStore`]'s default capacity.
#[doc(hidden)]
pub const DEFAULT_MAX_ANONYMOUS_TASKS: usize = DEFAULT_TASK_CAPACITY / 2;
/// The default bound on the arguments a task keeps, as compact JSON.
#[doc(hidden)]
pub const DEFAULT_MAX_KEPT_ARGUMENTS_BYTES: usize = 64 * 1024;
/// The default bound on the `_meta` entries a task keeps, as compact JSON.
#[doc(hidden)]
pub const DEFAULT_MAX_KEPT_META_BYTES: usize = 16 * 1024;
/// The default bound on the rounds one instance runs at once.
#[doc(hidden)]
pub const DEFAULT_MAX_RUNNING: usize = 1024;

/// How a server runs tasks: where their records live, and the bounds and
/// times that apply. `ServerBuilder::tasks` takes it; without it a server
/// whose tools support tasks keeps them in an [`InMemoryTaskStore`] with
/// these defaults.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::server::tasks::{InMemoryTaskStore, Tasks};
///
/// let tasks = Tasks::new(InMemoryTaskStore::new())
///     .ttl(Duration::from_secs(600))
///     .max_tasks_per_caller(20)
///     .max_tasks_per_anonymous_client(5);
/// # let _ = tasks;
/// ```
#[derive(Clone)]
pub struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
    pub(crate) creation_window: Duration,
    pub(crate) lease: Duration,
    pub(crate) cancel_grace: Duration,
    pub(crate) max_tasks_per_caller: usize,
    pub(crate) max_tasks_per_anonymous_client: usize,
    pub(crate) max_anonymous_tasks: usize,
    pub(crate) max_kept_arguments_bytes: usize,
    pub(crate) max_kept_meta_bytes: usize,
    pub(crate) max_running: usize,
}

impl Default for Tasks {
    fn default() -> Self {
        Self::new(InMemoryTaskStore::new())
    }
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .field("creation_window", &self.creation_window)
            .field("lease", &self.lease)
            .field("cancel_grace", &self.cancel_grace)
            .field("max_tasks_per_caller", &self.max_tasks_per_caller)
            .field(
                "max_tasks_per_anonymous_client",
                &self.max_tasks_per_anonymous_client,
            )
            .field("max_anonymous_tasks", &self.max_anonymous_tasks)
            .field("max_kept_arguments_bytes", &self.max_kept_arguments_bytes)
            .field("max_kept_meta_bytes", &self.max_kept_meta_bytes)
            .field("max_running", &self.max_running)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    /// Tasks kept in `store`, with the default times and bounds.
    pub fn new(store: impl TaskStore) -> Self {
        Self {
            store: Arc::new(store),
            ttl: DEFAULT_TASK_TTL,
            poll_interval: DEFAULT_POLL_INTERVAL,
            creation_window: DEFAULT_CREATION_WINDOW,
            lease: DEFAULT_LEASE,
            cancel_grace: DEFAULT_CANCEL_GRACE,
            max_tasks_per_caller: DEFAULT_MAX_TASKS_PER_CALLER,
            max_tasks_per_anonymous_client: DEFAULT_MAX_TASKS_PER_ANONYMOUS_CLIENT,
            max_anonymous_tasks: DEFAULT_MAX_ANONYMOUS_TASKS,
            max_kept_arguments_bytes: DEFAULT_MAX_KEPT_ARGUMENTS_BYTES,
            max_kept_meta_bytes: DEFAULT_MAX_KEPT_META_BYTES,
            max_running: DEFAULT_MAX_RUNNING,
        }
    }

    /// How long a task's record is kept after its creation, whatever its
    /// status (1 hour by default); a task still running then is gone.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl.max(Duration::from_millis(1));
        self
    }

    /// The poll interval suggested to clients (1 s by default).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// How long the first run may take before the call becomes a task
    /// (100 ms by default): a tool that may run as a task and
    /// finishes sooner is answered directly.
    pub fn creation_window(mut self, window: Duration) -> Self {
        self.creation_window = window;
        self
    }

    /// How long a round may go unconfirmed by the instance running it
    /// (30 s by default). The instance confirms every third of it; a task
    /// whose instance stopped is failed once it has run out.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(30));
        self
    }

    /// How long a cancelled round may run on before it is dropped
    /// (5 s by default); its context says it is cancelled at once.
    pub fn cancel_grace(mut self, grace: Duration) -> Self {
        self.cancel_grace = grace;
        self
    }

    /// The most tasks one authenticated caller (one subject) may hold
    /// (100 by default). Finished tasks count until their record expires
    /// (see [`ttl`](Self::ttl)), so this also bounds how many tasks a
    /// caller creates per `ttl`. A caller at the cap is refused with an
    /// error naming it. Keep it well under the store's capacity, so that no
    /// caller can take the store.
    pub fn max_tasks_per_caller(mut self, max: usize) -> Self {
        self.max_tasks_per_caller = max.max(1);
        self
    }

    /// The former name of [`max_tasks_per_caller`](Self::max_tasks_per_caller),
    /// which finished tasks now count toward too.
    #[deprecated(note = "finished tasks count too: use max_tasks_per_caller")]
    pub fn max_live_per_caller(self, max: usize) -> Self {
        self.max_tasks_per_caller(max)
    }

    /// The most tasks one unauthenticated client may hold (20 by default),
    /// finished ones included until they expire. Without authentication a
    /// client is known by where its requests come from: over HTTP by its
    /// IP address (an IPv6 address by its /64 network), so that clients
    /// behind one proxy or NAT share one allowance; over stdio the process
    /// has one client. Who may read a task does not change: any
    /// unauthenticated client that knows a task's id, whatever its address.
    pub fn max_tasks_per_anonymous_client(mut self, max: usize) -> Self {
        self.max_tasks_per_anonymous_client = max.max(1);
        self
    }

    /// The most tasks all unauthenticated clients together may hold
    /// (5,000 by default, half of an [`InMemoryTaskStore`]'s default
    /// capacity), so that authenticated callers always find room. Keep it
    /// under the store's capacity.
    pub fn max_anonymous_tasks(mut self, max: usize) -> Self {
        self.max_anonymous_tasks = max.max(1);
        self
    }

    /// The largest arguments a task call may have, as compact JSON
    /// (64 KiB by default). A task keeps its arguments until it finishes,
    /// for the rounds after its questions are answered; a call to a tool
    /// that may run as a task, from a request that declares the extension,
    /// with larger arguments is refused (`-32602`) before the handler runs.
    pub fn max_kept_arguments_bytes(mut self, max: usize) -> Self {
        self.max_kept_arguments_bytes = max;
        self
    }

    /// The largest `_meta` a task keeps, as compact JSON (16 KiB by
    /// default). A task keeps, until it finishes, only the entries its
    /// later rounds run under: the protocol version, the client
    /// capabilities and the client info; other entries are not kept and do
    /// not count. A task call whose kept entries are larger is refused
    /// (`-32602`) before the handler runs.
    pub fn max_kept_meta_bytes(mut self, max: usize) -> Self {
        self.max_kept_meta_bytes = max;
        self
    }

    /// The most rounds this instance runs at once (1,024 by default).
    pub fn max_running(mut self, max: usize) -> Self {
        self.max_running = max.max(1);
        self
    }
}

/// A server's tasks at run time: the settings, this instance's name in
/// leases, and the rounds running here (to cancel them at once).
pub(crate) struct TaskEngine {
    pub(crate) settings: Tasks,
    /// This instance, in the leases it takes.
    pub(crate) instance: String,
    running: Mutex<HashMap<String, watch::Sender<bool>>>,
}

impl TaskEngine {
    pub(crate) fn new(settings: Tasks) -> Arc<Self> {
        Arc::new(Self {
            settings,
            instance: random_hex(8),
            running: Mutex::new(HashMap::new()),
        })
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, watch::Sender<bool>>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records a round of `id` running here, unless this instance runs as
    /// many as it may.
    pub(crate) fn admit(&self, id: &str, cancel: watch::Sender<bool>) -> bool {
        let mut running = self.running();
        if running.len() >= self.settings.max_running {
            return false;
        }
        running.insert(id.to_owned(), cancel);
        true
    }

    /// Whether another round may start here.
    pub(crate) fn has_room(&self) -> bool {
        self.running().len() < self.settings.max_running
    }

    /// The round of `id` has ended here.
    pub(crate) fn release(&self, id: &str) {
        self.running().remove(id);
    }

    /// Tells the round of `id`, if it runs here, that it is cancelled.
    pub(crate) fn signal_cancel(&self, id: &str) {
        if let Some(cancel) = self.running().get(id) {
            cancel.send_replace(true);
        }
    }

    pub(crate) fn ttl_ms(&self) -> u64 {
        millis(self.settings.ttl)
    }

    pub(crate) fn lease_ms(&self) -> u64 {
        millis(self.settings.lease)
    }

    pub(crate) fn poll_interval_ms(&self) -> u64 {
        millis(self.settings.poll_interval).max(1)
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `bytes` random bytes as lowercase hex.
pub(crate) fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // The OS's generator; failing it, the time and a counter still make a
    // unique (if guessable) instance name. Task ids need the generator and
    // are refused without it (see `start`).
    if getrandom::fill(&mut buf).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        for (i, b) in buf.iter_mut().enumerate() {
            *b = (nanos >> ((i % 16) * 8)) as u8;
        }
    }
    crate::hex::hex(&buf)
}

/// A new task id: 128 bits from the OS's generator, hex. `None` when the
/// generator fails: a guessable id would let anyone read the task.
pub(crate) fn new_task_id() -> Option<String> {
    let mut buf = [0u8; 16];
    getrandom::fill(&mut buf).ok()?;
    Some(crate::hex::hex(&buf))
}
