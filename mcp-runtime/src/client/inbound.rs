//! Everything that arrives from the server, routed: responses to the
//! request that awaits them, the server's own requests (2025 era) to the
//! client's handlers, notifications to the progress and notification
//! handlers and the list cache.
//!
//! The server's requests are answered by the same [`Handlers`] that fulfil
//! `input_required` results, at most [`ClientLimits::max_server_requests`]
//! at once and each within [`ClientLimits::request_timeout`]; the answers
//! leave through a bounded queue that the connection drains. A request
//! past the bound is refused as busy; when the queue is full the refusal
//! waits, and the reader with it ([`Router::settle`]), so every request
//! gets its answer.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::task::AbortHandle;

use super::lists::ListKind;
use super::notifications::{Direction, ServerNotification};
use super::{ClientError, ClientLimits, Handlers};
use crate::logged::Wire;
use crate::schema::{
    CancelledNotificationParams, InputRequest, ProgressNotificationParams, ProgressToken,
    RequestId, codes, input_methods, meta_keys, notification_methods,
};

/// A handler of every notification.
pub(super) type NotificationHandler = Arc<dyn Fn(ServerNotification) + Send + Sync>;
/// A handler of one call's progress.
pub(super) type ProgressHandler = Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;
/// A tap on every message sent and received.
pub(super) type MessageTap = Arc<dyn Fn(Direction, &Value) + Send + Sync>;

/// The routing table of one connection.
pub(super) struct Router {
    pending: Mutex<HashMap<RequestId, oneshot::Sender<Value>>>,
    /// `subscriptions/listen` requests awaiting their acknowledgement.
    acknowledgements: Mutex<HashMap<RequestId, oneshot::Sender<Value>>>,
    progress: Mutex<HashMap<ProgressToken, ProgressHandler>>,
    handlers: Handlers,
    on_notification: Option<NotificationHandler>,
    pub(super) tap: Option<MessageTap>,
    /// Answers to the server's requests, for the connection to send.
    replies: mpsc::Sender<Value>,
    /// Refusals (busy) that found the queue full, for [`Router::settle`].
    refusals: Mutex<Vec<Value>>,
    /// Bounds the server's requests answered at once.
    answering: Arc<Semaphore>,
    /// The server's requests being answered, to stop on its cancellation.
    running: Arc<Mutex<HashMap<RequestId, AbortHandle>>>,
    answer_timeout: Duration,
    /// Bumped by each `list_changed` of tools, prompts, resources.
    generations: [AtomicU64; 3],
    /// Whether the server's unprompted notifications reach the client now
    /// (stdio, or an open GET stream in a 2025-era HTTP session).
    hearing: AtomicBool,
}

impl Router {
    /// A router and the queue of answers the connection must send.
    pub(super) fn new(
        handlers: Handlers,
        on_notification: Option<NotificationHandler>,
        tap: Option<MessageTap>,
        limits: &ClientLimits,
    ) -> (Arc<Self>, mpsc::Receiver<Value>) {
        let max = limits.max_server_requests.max(1);
        let (replies, queue) = mpsc::channel(max);
        let router = Self {
            pending: Mutex::default(),
            acknowledgements: Mutex::default(),
            progress: Mutex::default(),
            handlers,
            on_notification,
            tap,
            replies,
            refusals: Mutex::default(),
            answering: Arc::new(Semaphore::new(max)),
            running: Arc::default(),
            answer_timeout: limits.request_timeout,
            generations: Default::default(),
            hearing: AtomicBool::new(false),
        };
        (Arc::new(router), queue)
    }

    /// Registers a request about to be sent; its response is delivered to
    /// the receiver.
    pub(super) fn expect(&self, id: &RequestId) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(id.clone(), tx);
        }
        rx
    }

    /// Registers a `subscriptions/listen` request; the filter the server
    /// acknowledges is delivered to the receiver.
    pub(super) fn expect_acknowledgement(&self, id: &RequestId) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut waiting) = self.acknowledgements.lock() {
            waiting.insert(id.clone(), tx);
        }
        rx
    }

    /// Forgets a `subscriptions/listen` request's acknowledgement: its
    /// waiter hears that it will not come.
    pub(super) fn forget_acknowledgement(&self, id: &RequestId) {
        if let Ok(mut waiting) = self.acknowledgements.lock() {
            waiting.remove(id);
        }
    }

    /// Forgets a request whose response is no longer awaited.
    pub(super) fn forget(&self, id: &RequestId) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.remove(id);
        }
    }

    /// Fails every awaited request: the connection is gone.
    pub(super) fn fail_all(&self) {
        if let Ok(mut pending) = self.pending.lock() {
            pending.clear();
        }
    }

    /// Registers the progress handler of a call under `token`.
    pub(super) fn watch_progress(&self, token: ProgressToken, handler: ProgressHandler) {
        if let Ok(mut progress) = self.progress.lock() {
            progress.insert(token, handler);
        }
    }

    /// Removes the progress handler under `token`.
    pub(super) fn unwatch_progress(&self, token: &ProgressToken) {
        if let Ok(mut progress) = self.progress.lock() {
            progress.remove(token);
        }
    }

    /// How many `list_changed` notifications of `kind` have arrived.
    pub(super) fn generation(&self, kind: ListKind) -> u64 {
        self.generations[slot(kind)].load(Ordering::Acquire)
    }

    /// Records whether the server's unprompted notifications reach the
    /// client (a kept list is trusted only while they do).
    pub(super) fn set_hearing(&self, hearing: bool) {
        self.hearing.store(hearing, Ordering::Release);
    }

    /// Whether the server's unprompted notifications reach the client.
    pub(super) fn hears_notifications(&self) -> bool {
        self.hearing.load(Ordering::Acquire)
    }

    /// Shows a message to the tap, if one is set.
    pub(super) fn show(&self, direction: Direction, message: &Value) {
        if let Some(tap) = &self.tap {
            tap(direction, message);
        }
    }

    /// Routes one message from the server.
    pub(super) fn route(&self, message: Value) {
        self.show(Direction::Received, &message);
        let Value::Object(mut object) = message else {
            tracing::warn!("ignoring a message from the server that is not a JSON object");
            return;
        };
        let method = object
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let id = object.get("id").and_then(RequestId::from_json);
        match (method, id) {
            (None, Some(id)) => {
                let waiter = self.pending.lock().ok().and_then(|mut p| p.remove(&id));
                match waiter {
                    Some(waiter) => {
                        let _ = waiter.send(Value::Object(object));
                    }
                    None => tracing::debug!(
                        id = %Wire(&id.to_string()),
                        "a response nobody awaits (late or unknown id)"
                    ),
                }
            }
            (None, None) if object.contains_key("error") => {
                // An error the server could not tie to a request.
                let error = object
                    .get("error")
                    .map(Value::to_string)
                    .unwrap_or_default();
                tracing::warn!(error = %Wire(&error), "the server sent an error without an id");
            }
            (Some(method), Some(id)) => self.answer(id, method, object.remove("params")),
            (Some(method), None) => self.notified(&method, object.remove("params")),
            (None, None) => tracing::warn!("ignoring a message with neither method nor id"),
        }
    }

    /// Queues the refusals [`Router::route`] found no room for, waiting
    /// (each within the answer timeout) until the queue takes them. The
    /// readers of the connection call it after routing what they read, so
    /// a server that floods the client with requests is read no faster
    /// than it is answered, and each extra request gets its busy error.
    pub(super) async fn settle(&self) {
        let waiting = match self.refusals.lock() {
            Ok(mut refusals) => std::mem::take(&mut *refusals),
            Err(_) => return,
        };
        for refusal in waiting {
            let queued = tokio::time::timeout(self.answer_timeout, self.replies.send(refusal));
            if !matches!(queued.await, Ok(Ok(()))) {
                tracing::warn!("dropping a busy answer to the server: the queue stayed full");
            }
        }
    }

    /// Handles a notification of the server's.
    pub(super) fn notified(&self, method: &str, params: Option<Value>) {
        if method == notification_methods::CANCELLED {
            let cancelled = params
                .clone()
                .and_then(|p| serde_json::from_value::<CancelledNotificationParams>(p).ok());
            if let Some(cancelled) = cancelled {
                let handle = self
                    .running
                    .lock()
                    .ok()
                    .and_then(|mut r| r.remove(&cancelled.request_id));
                if let Some(handle) = handle {
                    handle.abort();
                }
            }
            return;
        }
        if method == notification_methods::SUBSCRIPTIONS_ACKNOWLEDGED {
            let id = params
                .as_ref()
                .and_then(|p| p.get("_meta")?.get(meta_keys::SUBSCRIPTION_ID))
                .and_then(RequestId::from_json);
            let waiter = id.and_then(|id| self.acknowledgements.lock().ok()?.remove(&id));
            if let Some(waiter) = waiter {
                let honoured = params
                    .as_ref()
                    .and_then(|p| p.get("notifications"))
                    .cloned()
                    .unwrap_or_default();
                let _ = waiter.send(honoured);
            }
            return;
        }
        let notification = ServerNotification::parse(method, params);
        match &notification {
            ServerNotification::Progress(progress) => {
                let handler = self
                    .progress
                    .lock()
                    .ok()
                    .and_then(|p| p.get(&progress.progress_token).cloned());
                if let Some(handler) = handler {
                    handler(progress.clone());
                }
            }
            ServerNotification::ToolsListChanged => self.bump(ListKind::Tools),
            ServerNotification::PromptsListChanged => self.bump(ListKind::Prompts),
            ServerNotification::ResourcesListChanged => self.bump(ListKind::Resources),
            _ => {}
        }
        if let Some(handler) = &self.on_notification {
            handler(notification);
        }
    }

    fn bump(&self, kind: ListKind) {
        self.generations[slot(kind)].fetch_add(1, Ordering::AcqRel);
    }

    /// Answers a request of the server's in a task of its own, within the
    /// bound on requests answered at once.
    fn answer(&self, id: RequestId, method: String, params: Option<Value>) {
        let Ok(permit) = Arc::clone(&self.answering).try_acquire_owned() else {
            let busy = error(
                &id,
                codes::INTERNAL_ERROR,
                "the client is busy answering other requests",
            );
            if let Err(mpsc::error::TrySendError::Full(busy)) = self.replies.try_send(busy)
                && let Ok(mut refusals) = self.refusals.lock()
            {
                refusals.push(busy);
            }
            return;
        };
        let handlers = self.handlers.clone();
        let replies = self.replies.clone();
        let running = Arc::clone(&self.running);
        let limit = self.answer_timeout;
        let task_id = id.clone();
        // Held until the task is recorded, so that a task finishing at once
        // removes its entry after it was inserted (none is left behind).
        let mut tracked = self.running.lock().ok();
        let handle = tokio::spawn(async move {
            let reply =
                match tokio::time::timeout(limit, respond(&handlers, &task_id, &method, params))
                    .await
                {
                    Ok(reply) => reply,
                    Err(_) => error(
                        &task_id,
                        codes::INTERNAL_ERROR,
                        &format!("the client did not answer {method} within {limit:?}"),
                    ),
                };
            if let Ok(mut running) = running.lock() {
                running.remove(&task_id);
            }
            let _ = replies.send(reply).await;
            drop(permit);
        });
        if let Some(running) = tracked.as_mut() {
            running.insert(id, handle.abort_handle());
        }
    }
}

/// The counter of `list_changed` notifications that covers `kind`.
fn slot(kind: ListKind) -> usize {
    match kind.changed_by() {
        ListKind::Tools => 0,
        ListKind::Prompts => 1,
        _ => 2,
    }
}

/// The response to one request of the server's.
async fn respond(
    handlers: &Handlers,
    id: &RequestId,
    method: &str,
    params: Option<Value>,
) -> Value {
    if method == "ping" {
        return json!({"jsonrpc": "2.0", "id": id, "result": {}});
    }
    if ![
        input_methods::ELICITATION,
        input_methods::SAMPLING,
        input_methods::LIST_ROOTS,
    ]
    .contains(&method)
    {
        return error(
            id,
            codes::METHOD_NOT_FOUND,
            &format!("the client does not serve {method}"),
        );
    }
    let request = json!({"method": method, "params": params.unwrap_or_else(|| json!({}))});
    let request: InputRequest = match serde_json::from_value(request) {
        Ok(request) => request,
        Err(e) => {
            return error(
                id,
                codes::INVALID_PARAMS,
                &format!("invalid {method} params: {e}"),
            );
        }
    };
    match handlers.answer(&id.to_string(), request).await {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(ClientError::MissingHandler { kind, .. }) => error(
            id,
            codes::METHOD_NOT_FOUND,
            &format!("the client has no handler for {kind}"),
        ),
        Err(e) => error(id, codes::INTERNAL_ERROR, &e.to_string()),
    }
}

fn error(id: &RequestId, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}
