//! A 2025-era session: what `initialize` settled (the version, the client's
//! capabilities), the session's log level and resource subscriptions, and
//! the back channel on which the server asks the client something
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`) and awaits
//! the answer.
//!
//! A transport keeps one [`Session`] per HTTP session or stdio connection,
//! hands it to the server with every request of that session
//! ([`Server::handle_session_request`](crate::server::Server::handle_session_request)), delivers the
//! client's responses to it ([`Session::deliver`]) and ends it
//! ([`Session::end`]) when the client leaves. Everything a peer can grow
//! here is bounded: pending questions, subscriptions.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;
use tokio::sync::{oneshot, watch};

use crate::budget::Held;
use crate::schema::{
    ClientCapabilities, ErrorObject, Implementation, JsonRpcNotification, LoggingLevel,
    NotificationParams, ProgressToken, RequestId, RequestMeta, ResourceUpdatedNotificationParams,
    notification_methods,
};
use crate::server::notify::Change;

/// The most questions one session may have open with its client at once.
pub(crate) const MAX_PENDING_QUESTIONS: usize = 64;

/// The most resources one session may subscribe to by default
/// ([`MemoryLimits::max_subscriptions`](crate::server::MemoryLimits)).
pub const MAX_SUBSCRIPTIONS: usize = 1024;

/// The server's side of one 2025-era session. Cheap to clone (shared).
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

struct Inner {
    id: String,
    version: &'static str,
    capabilities: ClientCapabilities,
    client_info: Option<Implementation>,
    state: Mutex<State>,
    /// The session's charge to the server's memory budget, for what it
    /// keeps of `initialize`.
    _held: Held,
    next_question: AtomicI64,
    /// What others wait for: the session's end, and questions awaiting the
    /// client's answer (stdio's reading must not stall while there are).
    signals: watch::Sender<Signals>,
}

/// What can be waited for in a session (one channel: it is most of an idle
/// session's memory).
#[derive(Debug, Clone, Copy, Default)]
struct Signals {
    /// Questions awaiting the client's answer.
    awaiting: usize,
    /// The session has ended.
    ended: bool,
}

#[derive(Default)]
struct State {
    initialized: bool,
    level: Option<LoggingLevel>,
    /// Each subscribed URI with its charge to the memory budget.
    subscriptions: HashMap<String, Held>,
    pending: HashMap<RequestId, oneshot::Sender<Returned>>,
}

/// A client's response to a request the server sent it (2025-era sessions
/// only: `elicitation/create`, `sampling/createMessage`, `roots/list`).
#[derive(Debug)]
pub struct ClientResponse {
    /// The id of the server's request.
    pub id: RequestId,
    /// The result as the JSON the client sent (parsed only by whoever
    /// reads it), or the error it answered with.
    pub outcome: Result<Box<RawValue>, ErrorObject>,
}

/// What a client answered one question with.
type Returned = Result<Box<RawValue>, ErrorObject>;

/// Why a question to the client got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unanswered {
    /// The session ended (the client left or ended it).
    Ended,
    /// The request's stream cannot carry a request to the client.
    NoStream,
    /// Too many questions are open in this session.
    TooMany,
}

/// A client response that matched no open question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownResponse {
    /// The id the response named.
    pub id: RequestId,
}

impl std::fmt::Display for UnknownResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no request of this session awaits a response with id {} (it may have timed out)",
            self.id
        )
    }
}

impl std::error::Error for UnknownResponse {}

impl Session {
    /// A session `initialize` opened at `version` for a client with these
    /// capabilities, charged `held` to the memory budget for what it keeps.
    pub(crate) fn open(
        version: &'static str,
        capabilities: ClientCapabilities,
        client_info: Option<Implementation>,
        held: Held,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                id: new_session_id(),
                version,
                capabilities,
                client_info,
                state: Mutex::new(State::default()),
                _held: held,
                next_question: AtomicI64::new(1),
                signals: watch::channel(Signals::default()).0,
            }),
        }
    }

    /// The session id: 32 random bytes as 64 hex digits (visible ASCII, as
    /// `MCP-Session-Id` requires, and unguessable).
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The protocol version `initialize` settled on.
    pub fn protocol_version(&self) -> &'static str {
        self.inner.version
    }

    /// The capabilities the client declared in `initialize`.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.inner.capabilities
    }

    /// The client's self-description from `initialize`.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client_info.as_ref()
    }

    /// Whether the client sent `notifications/initialized`.
    pub fn is_initialized(&self) -> bool {
        self.lock().initialized
    }

    /// Records `notifications/initialized`.
    pub(crate) fn mark_initialized(&self) {
        self.lock().initialized = true;
    }

    /// The level `logging/setLevel` set, if any.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.lock().level
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        self.lock().level = Some(level);
    }

    /// Subscribes to updates of `uri`, charged `held`; `false` when the
    /// session already holds `max` other subscriptions.
    pub(crate) fn subscribe(&self, uri: String, held: Held, max: usize) -> bool {
        let mut state = self.lock();
        if state.subscriptions.len() >= max && !state.subscriptions.contains_key(&uri) {
            return false;
        }
        state.subscriptions.insert(uri, held);
        true
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        self.lock().subscriptions.remove(uri);
    }

    /// The `_meta` a request of this session is served with: the session's
    /// version, capabilities and log level, and the request's own progress
    /// token. Until the client sets a level, every message is sent, as the
    /// 2025-era SDKs do.
    pub(crate) fn request_meta(&self, progress_token: Option<ProgressToken>) -> RequestMeta {
        RequestMeta {
            protocol_version: self.inner.version.to_owned(),
            client_capabilities: self.inner.capabilities.clone(),
            client_info: self.inner.client_info.clone(),
            log_level: Some(self.log_level().unwrap_or(LoggingLevel::Debug)),
            progress_token,
        }
    }

    /// The notification that tells this session's client about `change`,
    /// as the JSON sent on its standalone stream, or `None` when the client
    /// did not ask for it (a resource it has not subscribed to).
    pub fn notification_for(&self, change: &Change) -> Option<String> {
        use notification_methods as m;
        let empty = NotificationParams::default();
        let json = match change {
            Change::ToolsListChanged => {
                serde_json::to_string(&JsonRpcNotification::new(m::TOOLS_LIST_CHANGED, &empty))
            }
            Change::PromptsListChanged => {
                serde_json::to_string(&JsonRpcNotification::new(m::PROMPTS_LIST_CHANGED, &empty))
            }
            Change::ResourcesListChanged => {
                serde_json::to_string(&JsonRpcNotification::new(m::RESOURCES_LIST_CHANGED, &empty))
            }
            Change::ResourceUpdated(uri) => {
                if !self.lock().subscriptions.contains_key(uri) {
                    return None;
                }
                let params = ResourceUpdatedNotificationParams {
                    uri: uri.clone(),
                    meta: None,
                };
                serde_json::to_string(&JsonRpcNotification::new(m::RESOURCES_UPDATED, params))
            }
        };
        json.ok()
    }

    /// Hands the client's response to the question it answers.
    pub fn deliver(&self, response: ClientResponse) -> Result<(), UnknownResponse> {
        let waiting = self.lock().pending.remove(&response.id);
        match waiting {
            // The asker may have given up in between: the answer is then
            // dropped, as one arriving after it would be.
            Some(tx) => {
                let _ = tx.send(response.outcome);
                Ok(())
            }
            None => Err(UnknownResponse { id: response.id }),
        }
    }

    /// Ends the session: every open question fails, every stream of the
    /// session closes. Idempotent.
    pub fn end(&self) {
        self.inner.signals.send_modify(|s| s.ended = true);
        let pending = std::mem::take(&mut self.lock().pending);
        drop(pending);
        self.inner.signals.send_modify(|s| s.awaiting = 0);
    }

    /// Whether the session has ended.
    pub fn is_ended(&self) -> bool {
        self.inner.signals.borrow().ended
    }

    /// Completes once the session has ended.
    pub async fn ended(&self) {
        let mut signals = self.inner.signals.subscribe();
        // Err: the sender lives as long as `self`; treat it as ended.
        let _ = signals.wait_for(|s| s.ended).await;
    }

    /// How many of the server's questions await the client's answer.
    pub fn awaiting_client(&self) -> usize {
        self.inner.signals.borrow().awaiting
    }

    /// Completes once at least one question awaits the client's answer.
    pub async fn until_awaiting_client(&self) {
        let mut signals = self.inner.signals.subscribe();
        let _ = signals.wait_for(|s| s.awaiting > 0).await;
    }

    /// Opens a question: its id, the receiver of the answer, and a guard
    /// that closes the question when dropped (answered, timed out, or the
    /// asker dropped).
    pub(crate) fn open_question(&self) -> Result<Question, Unanswered> {
        if self.is_ended() {
            return Err(Unanswered::Ended);
        }
        let id = RequestId::Number(self.inner.next_question.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        {
            let mut state = self.lock();
            if state.pending.len() >= MAX_PENDING_QUESTIONS {
                return Err(Unanswered::TooMany);
            }
            state.pending.insert(id.clone(), tx);
            let awaiting = state.pending.len();
            self.inner.signals.send_modify(|s| s.awaiting = awaiting);
        }
        Ok(Question {
            session: self.clone(),
            id,
            answer: Some(rx),
        })
    }

    fn close_question(&self, id: &RequestId) {
        let mut state = self.lock();
        state.pending.remove(id);
        let awaiting = state.pending.len();
        self.inner.signals.send_modify(|s| s.awaiting = awaiting);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl PartialEq for Session {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("version", &self.inner.version)
            .field("ended", &self.is_ended())
            .finish_non_exhaustive()
    }
}

/// One open question to the client.
pub(crate) struct Question {
    session: Session,
    pub(crate) id: RequestId,
    answer: Option<oneshot::Receiver<Returned>>,
}

impl Question {
    /// The client's answer; `Err(Ended)` when the session ends first.
    pub(crate) async fn answer(&mut self) -> Result<Returned, Unanswered> {
        match self.answer.take() {
            Some(rx) => rx.await.map_err(|_| Unanswered::Ended),
            None => Err(Unanswered::Ended),
        }
    }
}

impl Drop for Question {
    fn drop(&mut self) {
        self.session.close_question(&self.id);
    }
}

/// 32 bytes from the operating system's generator, as hex. If the generator
/// fails (it does not on any supported system), a per-process counter mixed
/// with the time keeps ids distinct, though guessable; that is logged.
fn new_session_id() -> String {
    let mut bytes = [0u8; 32];
    if let Err(error) = getrandom::fill(&mut bytes) {
        tracing::error!(%error, "no randomness for a session id");
        static COUNTER: AtomicI64 = AtomicI64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes[..8].copy_from_slice(&n.to_le_bytes());
        bytes[8..24].copy_from_slice(&t.to_le_bytes());
    }
    crate::hex::hex(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Box<RawValue> {
        RawValue::from_string(json.to_owned()).unwrap()
    }

    fn session() -> Session {
        Session::open(
            "2025-11-25",
            ClientCapabilities::default(),
            None,
            Held::none(),
        )
    }

    #[test]
    fn ids_are_long_random_visible_ascii() {
        let (a, b) = (session(), session());
        assert_eq!(a.id().len(), 64);
        assert!(a.id().bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a.id(), b.id());
    }

    #[tokio::test]
    async fn an_answer_reaches_its_question_once() {
        let s = session();
        let mut q = s.open_question().unwrap();
        assert_eq!(s.awaiting_client(), 1);
        let id = q.id.clone();
        s.deliver(ClientResponse {
            id: id.clone(),
            outcome: Ok(raw("true")),
        })
        .unwrap();
        let answer = q.answer().await.unwrap().unwrap();
        assert_eq!(answer.get(), "true");
        let again = s.deliver(ClientResponse {
            id,
            outcome: Ok(raw("null")),
        });
        assert!(again.is_err(), "a second answer matches nothing");
        drop(q);
        assert_eq!(s.awaiting_client(), 0);
    }

    #[tokio::test]
    async fn ending_fails_open_questions_and_refuses_new_ones() {
        let s = session();
        let mut q = s.open_question().unwrap();
        s.end();
        assert!(matches!(q.answer().await, Err(Unanswered::Ended)));
        assert!(matches!(s.open_question(), Err(Unanswered::Ended)));
        s.ended().await;
    }

    #[test]
    fn questions_and_subscriptions_are_bounded() {
        let s = session();
        let open: Vec<_> = (0..MAX_PENDING_QUESTIONS)
            .map(|_| s.open_question().unwrap())
            .collect();
        assert!(matches!(s.open_question(), Err(Unanswered::TooMany)));
        drop(open);
        assert!(s.open_question().is_ok());
        for i in 0..MAX_SUBSCRIPTIONS {
            assert!(s.subscribe(format!("file:///{i}"), Held::none(), MAX_SUBSCRIPTIONS));
        }
        assert!(!s.subscribe(
            "file:///one-more".to_owned(),
            Held::none(),
            MAX_SUBSCRIPTIONS
        ));
        assert!(
            s.subscribe("file:///0".to_owned(), Held::none(), MAX_SUBSCRIPTIONS),
            "an existing one is fine"
        );
    }

    #[test]
    fn resource_updates_go_only_to_subscribers() {
        let s = session();
        let change = Change::ResourceUpdated("file:///a".to_owned());
        assert_eq!(s.notification_for(&change), None);
        s.subscribe("file:///a".to_owned(), Held::none(), MAX_SUBSCRIPTIONS);
        let json = s.notification_for(&change).unwrap();
        assert!(json.contains("notifications/resources/updated"), "{json}");
        s.unsubscribe("file:///a");
        assert_eq!(s.notification_for(&change), None);
        assert!(s.notification_for(&Change::ToolsListChanged).is_some());
    }
}
