//! URL-mode steps the server can see finish.
//!
//! A URL-mode elicitation sends the user to a page (to sign in, to pay, to
//! approve). The client's `accept` only says the user agreed to go there;
//! 2026-07-28 has no way for the server to learn that the step behind the
//! URL is done. A [`UrlStep`] closes that gap: the handler opens one (an
//! unguessable id, owned by the caller, expiring with the state), puts its
//! id in the URL, and the application's own web route marks it complete
//! with [`UrlSteps::complete`] once the payment or sign-in went through.
//! On the retry, [`Ctx::url_step_answer`](super::handler::Ctx::url_step_answer)
//! is `Completed` only if it really was; otherwise the handler asks again,
//! or waits (bounded) with
//! [`Ctx::wait_url_step`](super::handler::Ctx::wait_url_step).
//!
//! Steps live in a [`UrlStepStore`]: [`InMemoryUrlSteps`] for one process,
//! `RedisUrlSteps` (cargo feature `redis`) when the web route may run
//! on another instance than the MCP request.
//!
//! In the source, this room uses only `notify` (a step's completion
//! announced on the request's stream).

mod announce;
#[cfg(feature = "redis")]
mod redis;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::BoxFuture;
use crate::schema::InputRequest;
use crate::state::{Clock, SystemClock};

use super::notify::Notifier;
use announce::Announcements;
pub(crate) use announce::step_ids_in;

#[cfg(feature = "redis")]
pub use redis::{DEFAULT_URL_STEP_KEY_PREFIX, RedisUrlSteps};

/// How long a step stays open by default (10 minutes, the default
/// `requestState` lifetime).
#[doc(hidden)]
pub const DEFAULT_URL_STEP_TTL: Duration = Duration::from_secs(600);
/// The most steps an [`InMemoryUrlSteps`] keeps open at once by default.
#[doc(hidden)]
pub const DEFAULT_URL_STEP_CAPACITY: usize = 100_000;

/// A URL-mode step the server tracks: carry it in the resume state, put
/// [`id`](Self::id) in the URL, and ask with [`request`](Self::request).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlStep {
    id: String,
}

impl UrlStep {
    /// The step's id: 32 hex digits, unguessable. The web route that
    /// finishes the step passes it to [`UrlSteps::complete`].
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The URL-mode elicitation that sends the user to `url` for this
    /// step. Put [`id`](Self::id) in `url`: the web route learns the step
    /// from it, and a 2025-era client asked through the bridge hears
    /// `notifications/elicitation/complete` only for a URL that carries it.
    pub fn request(&self, message: impl Into<String>, url: impl Into<String>) -> InputRequest {
        InputRequest::elicit_url(message, url)
    }
}

/// What became of a URL step on the retry
/// ([`Ctx::url_step_answer`](super::handler::Ctx::url_step_answer)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlAnswer {
    /// The user accepted, and the application marked the step complete.
    Completed,
    /// The user accepted, but the step is not complete (yet): ask again,
    /// or wait ([`Ctx::wait_url_step`](super::handler::Ctx::wait_url_step)).
    Pending,
    /// The step expired or is not this caller's: open a new one.
    Expired,
    /// The user declined to go.
    Declined,
    /// The user dismissed the request.
    Cancelled,
    /// No answer under the key: ask again.
    Missing,
    /// The store could not be reached (the reason, for the log).
    Unavailable(String),
}

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlStepStatus {
    /// Opened, not yet completed.
    Pending,
    /// Marked complete by the application.
    Completed,
}

/// Why a step could not be opened, completed or read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlStepError {
    /// No open step has this id (never opened, or expired).
    Unknown,
    /// The step belongs to another subject.
    Foreign,
    /// The store holds as many open steps as it may.
    Full,
    /// The store could not be reached.
    Unavailable(String),
}

impl fmt::Display for UrlStepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unknown => f.write_str("no open URL step has this id"),
            Self::Foreign => f.write_str("the URL step belongs to another subject"),
            Self::Full => f.write_str("too many URL steps are open"),
            Self::Unavailable(why) => write!(f, "the URL step store is unavailable: {why}"),
        }
    }
}

impl std::error::Error for UrlStepError {}

/// Keeps URL steps: who owns each, until when, and whether it is done.
/// Each call must be atomic.
pub trait UrlStepStore: Send + Sync + 'static {
    /// Opens step `id` for `owner` until `expires_at` (Unix seconds).
    fn open<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        expires_at: u64,
    ) -> BoxFuture<'a, Result<(), UrlStepError>>;

    /// Marks step `id` complete, if `owner` owns it and it is open.
    fn complete<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), UrlStepError>>;

    /// Where step `id` of `owner` stands.
    fn status<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<UrlStepStatus, UrlStepError>>;
}

/// The steps a server tracks, and the handle the application's web route
/// finishes them through. Cheap to clone.
///
/// ```
/// use mcp_runtime::server::Server;
/// use mcp_runtime::server::url_steps::UrlSteps;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let steps = UrlSteps::in_memory();
/// let server = Server::builder("shop", "1.0.0").url_steps(steps.clone()).build()?;
/// // In the payment provider's callback route, once the payment cleared:
/// // steps.complete(&step_id, &user).await?;
/// # let _ = server; Ok(()) }
/// ```
#[derive(Clone)]
pub struct UrlSteps {
    store: Arc<dyn UrlStepStore>,
    ttl: Duration,
    clock: Arc<dyn Clock>,
    /// 2025-era clients to tell when their step completes.
    announcements: Arc<Announcements>,
}

impl fmt::Debug for UrlSteps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UrlSteps")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl UrlSteps {
    /// Steps kept in `store`, open for 10 minutes.
    pub fn new(store: impl UrlStepStore) -> Self {
        Self {
            store: Arc::new(store),
            ttl: DEFAULT_URL_STEP_TTL,
            clock: Arc::new(SystemClock),
            announcements: Arc::default(),
        }
    }

    /// Steps kept in this process ([`InMemoryUrlSteps`]).
    pub fn in_memory() -> Self {
        Self::new(InMemoryUrlSteps::new())
    }

    /// How long a step stays open (10 minutes by default); keep it at
    /// most the `requestState` lifetime, which bounds the flow anyway.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Reads time on `clock` (tests).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Marks step `id` complete for `subject`, the authenticated subject
    /// of the MCP caller who was asked (`""` on a server without
    /// authentication). An unknown or expired id is [`UrlStepError::Unknown`],
    /// another subject's step [`UrlStepError::Foreign`]: neither is marked.
    ///
    /// A 2025-era client asked for this step in this process hears of it
    /// (`notifications/elicitation/complete`) before this returns.
    pub async fn complete(&self, id: &str, subject: &str) -> Result<(), UrlStepError> {
        // Whatever a web route was sent: an id of another shape is no step,
        // and never reaches the store.
        if !is_step_id(id) {
            return Err(UrlStepError::Unknown);
        }
        self.store.complete(id, subject).await?;
        self.announcements.announce(id).await;
        Ok(())
    }

    /// Announces step `id`'s end to the 2025-era client asked for it in
    /// this process, if it was and has not heard yet.
    pub(crate) async fn announce(&self, id: &str) {
        self.announcements.announce(id).await;
    }

    /// The bridge asks a 2025-era client, on `notifier` under
    /// `elicitation_id`, a URL-mode request whose URL carries `id`: if
    /// `id` is a step of `owner`, the client hears when it completes (or,
    /// just after the question, that it already has), in this process or
    /// on another instance. The watch polls the store until the step
    /// completes or expires, or the request has been answered.
    pub(crate) async fn watch(
        &self,
        id: &str,
        owner: &str,
        elicitation_id: &str,
        notifier: &Notifier,
    ) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if !notifier.is_enabled() {
            return;
        }
        // A step completed before the question went out is still announced
        // (by the watch's first poll, after the question).
        if !matches!(
            self.store.status(id, owner).await,
            Ok(UrlStepStatus::Pending | UrlStepStatus::Completed)
        ) {
            return;
        }
        if !self.announcements.register(id, elicitation_id, notifier) {
            tracing::warn!("too many URL steps wait to be announced; this one will not be");
            return;
        }
        // Asked again: the newest question is the one to answer, and the
        // watch already running serves it.
        if !self.announcements.claim_watch(id) {
            return;
        }
        let (steps, id, owner) = (self.clone(), id.to_owned(), owner.to_owned());
        runtime.spawn(async move { steps.poll_until_done(&id, &owner).await });
    }

    /// Step `id`'s one watch: polls it until it completes (then announces
    /// it), expires, or nobody waits to hear of it; at most the step
    /// lifetime.
    async fn poll_until_done(&self, id: &str, owner: &str) {
        let deadline = tokio::time::Instant::now() + self.ttl;
        let mut pause = Duration::from_millis(100);
        loop {
            if !self.announcements.keep_watching(id) {
                // Nobody waits: the watch is over (ended by the check).
                return;
            }
            if tokio::time::Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
            match self.store.status(id, owner).await {
                // Announced, the watch ends at the next check.
                Ok(UrlStepStatus::Completed) => self.announcements.announce(id).await,
                Ok(UrlStepStatus::Pending) | Err(UrlStepError::Unavailable(_)) => {}
                Err(UrlStepError::Unknown | UrlStepError::Foreign | UrlStepError::Full) => break,
            }
        }
        // The step expired or is gone: nobody will hear of it.
        self.announcements.stop_watching(id);
    }

    /// Opens a step for `owner`.
    pub(crate) async fn open(&self, owner: &str) -> Result<UrlStep, UrlStepError> {
        let id = new_id().map_err(UrlStepError::Unavailable)?;
        let expires_at = self.clock.now().saturating_add(self.ttl.as_secs().max(1));
        self.store.open(&id, owner, expires_at).await?;
        Ok(UrlStep { id })
    }

    /// Where `step` of `owner` stands.
    pub(crate) async fn status(
        &self,
        step: &UrlStep,
        owner: &str,
    ) -> Result<UrlStepStatus, UrlStepError> {
        self.store.status(&step.id, owner).await
    }
}

/// Whether `id` has a step id's shape: 32 hex digits.
fn is_step_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// 128 random bits as 32 hex digits.
fn new_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness for a step id: {e}"))?;
    Ok(crate::hex::hex(&bytes))
}

/// URL steps in this process's memory, at most
/// 100,000 open at once (expired ones are swept
/// when it fills).
pub struct InMemoryUrlSteps {
    steps: Mutex<HashMap<String, Kept>>,
    clock: Arc<dyn Clock>,
    capacity: usize,
}

struct Kept {
    owner: String,
    expires_at: u64,
    done: bool,
}

impl InMemoryUrlSteps {
    /// An empty store on the system clock.
    pub fn new() -> Self {
        Self::with_clock(Arc::new(SystemClock))
    }

    /// An empty store on `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self {
            steps: Mutex::new(HashMap::new()),
            clock,
            capacity: DEFAULT_URL_STEP_CAPACITY,
        }
    }

    /// The most steps open at once (at least 1).
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// How many steps are kept (expired ones included until swept).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when no step is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Kept>> {
        self.steps.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The open step `id` of `owner`, after dropping it if expired.
    fn find<'a>(
        steps: &'a mut HashMap<String, Kept>,
        id: &str,
        owner: &str,
        now: u64,
    ) -> Result<&'a mut Kept, UrlStepError> {
        if steps.get(id).is_some_and(|kept| kept.expires_at <= now) {
            steps.remove(id);
        }
        match steps.get_mut(id) {
            None => Err(UrlStepError::Unknown),
            Some(kept) if kept.owner != owner => Err(UrlStepError::Foreign),
            Some(kept) => Ok(kept),
        }
    }
}

impl Default for InMemoryUrlSteps {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for InMemoryUrlSteps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryUrlSteps")
            .field("kept", &self.len())
            .finish()
    }
}

impl UrlStepStore for InMemoryUrlSteps {
    fn open<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        expires_at: u64,
    ) -> BoxFuture<'a, Result<(), UrlStepError>> {
        let now = self.clock.now();
        let mut steps = self.lock();
        if steps.len() >= self.capacity {
            steps.retain(|_, kept| kept.expires_at > now);
        }
        let opened = if steps.len() >= self.capacity {
            Err(UrlStepError::Full)
        } else {
            let kept = Kept {
                owner: owner.to_owned(),
                expires_at,
                done: false,
            };
            steps.insert(id.to_owned(), kept);
            Ok(())
        };
        Box::pin(std::future::ready(opened))
    }

    fn complete<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<(), UrlStepError>> {
        let now = self.clock.now();
        let mut steps = self.lock();
        let completed = Self::find(&mut steps, id, owner, now).map(|kept| kept.done = true);
        Box::pin(std::future::ready(completed))
    }

    fn status<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<UrlStepStatus, UrlStepError>> {
        let now = self.clock.now();
        let mut steps = self.lock();
        let status = Self::find(&mut steps, id, owner, now).map(|kept| match kept.done {
            true => UrlStepStatus::Completed,
            false => UrlStepStatus::Pending,
        });
        Box::pin(std::future::ready(status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::ManualClock;

    fn ready<T>(future: BoxFuture<'_, T>) -> T {
        futures_util::FutureExt::now_or_never(future).unwrap_or_else(|| unreachable!())
    }

    #[test]
    fn a_step_is_completed_by_its_owner_only_and_expires() {
        let clock = ManualClock::at(100);
        let store = InMemoryUrlSteps::with_clock(clock.clone()).capacity(2);
        ready(store.open("a", "ada", 200)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ready(store.status("a", "ada")), Ok(UrlStepStatus::Pending));
        assert_eq!(
            ready(store.complete("a", "bob")),
            Err(UrlStepError::Foreign)
        );
        assert_eq!(ready(store.status("a", "bob")), Err(UrlStepError::Foreign));
        assert_eq!(
            ready(store.complete("zz", "ada")),
            Err(UrlStepError::Unknown)
        );
        assert_eq!(ready(store.status("a", "ada")), Ok(UrlStepStatus::Pending));
        assert_eq!(ready(store.complete("a", "ada")), Ok(()));
        assert_eq!(
            ready(store.status("a", "ada")),
            Ok(UrlStepStatus::Completed)
        );

        // Full: a new step waits for room; expiry makes it.
        ready(store.open("b", "ada", 150)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ready(store.open("c", "ada", 300)), Err(UrlStepError::Full));
        clock.advance(60);
        assert_eq!(ready(store.open("c", "ada", 300)), Ok(()));
        assert_eq!(
            ready(store.complete("b", "ada")),
            Err(UrlStepError::Unknown)
        );
        clock.advance(100);
        assert_eq!(ready(store.status("a", "ada")), Err(UrlStepError::Unknown));
        assert_eq!(store.len(), 1, "expired steps are dropped");
    }
}
