//! The way out of a request: the notifications and requests its handler
//! sends before the response, and the signal that closes its stream early.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{Notify, mpsc};

use crate::schema::JsonRpcNotification;

/// Carries the notifications a handler emits (progress, log messages) to
/// the transport, already serialised. A disabled notifier drops them.
#[derive(Debug, Clone, Default)]
pub struct Notifier {
    tx: Option<mpsc::Sender<String>>,
    close: Option<StreamClose>,
}

/// A [`Notifier`] that does not hold its stream open: it reaches the
/// client only while the request is still being answered.
#[derive(Debug)]
pub(crate) struct WeakNotifier(mpsc::WeakSender<String>);

impl WeakNotifier {
    /// The notifier, while its request is still being answered and the
    /// client still listens.
    pub(crate) fn upgrade(&self) -> Option<Notifier> {
        self.0
            .upgrade()
            .map(Notifier::new)
            .filter(|notifier| !notifier.is_closed())
    }
}

impl Notifier {
    /// A notifier that sends serialised notifications on `tx`.
    pub fn new(tx: mpsc::Sender<String>) -> Self {
        Self {
            tx: Some(tx),
            close: None,
        }
    }

    /// A notifier that drops everything (the transport cannot stream).
    pub fn disabled() -> Self {
        Self {
            tx: None,
            close: None,
        }
    }

    /// This notifier, for a stream its handler may close early with
    /// [`Ctx::close_stream`](crate::server::handler::Ctx::close_stream): the
    /// transport watches `close` and resumes the stream when the client
    /// reconnects.
    pub fn closable(mut self, close: StreamClose) -> Self {
        self.close = Some(close);
        self
    }

    /// Asks the transport to close the stream; `false` when it cannot.
    pub(crate) fn close_stream(&self, retry: Duration) -> bool {
        match &self.close {
            Some(close) if self.tx.is_some() => {
                close.request(retry);
                true
            }
            _ => false,
        }
    }

    /// Whether notifications reach the client (the transport can stream).
    pub fn is_enabled(&self) -> bool {
        self.tx.is_some()
    }

    /// Whether nothing sent now can reach the client any more (disabled,
    /// or the stream it fed is gone).
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.as_ref().is_none_or(mpsc::Sender::is_closed)
    }

    /// A handle that reaches this stream without keeping it open: the
    /// transport answers the request once every strong notifier is gone.
    pub(crate) fn downgrade(&self) -> Option<WeakNotifier> {
        self.tx.as_ref().map(|tx| WeakNotifier(tx.downgrade()))
    }

    /// Sends one message, already serialised (a request to the client).
    pub(crate) async fn send_json(&self, json: String) -> bool {
        match &self.tx {
            Some(tx) => tx.send(json).await.is_ok(),
            None => false,
        }
    }

    pub(crate) async fn send<P: Serialize>(&self, method: &str, params: P) -> bool {
        let Some(tx) = &self.tx else { return false };
        match serde_json::to_string(&JsonRpcNotification::new(method, params)) {
            Ok(line) => tx.send(line).await.is_ok(),
            Err(error) => {
                tracing::error!(%error, method, "could not serialise a notification");
                false
            }
        }
    }
}

/// A handler's request to end the HTTP event stream its request's messages
/// travel on, so that the client reconnects (SSE polling, 2025-11-25): set
/// through the request's [`Notifier`], watched by the transport. Cheap to
/// clone (shared).
#[derive(Debug, Clone, Default)]
pub struct StreamClose {
    inner: Arc<CloseInner>,
}

#[derive(Debug, Default)]
struct CloseInner {
    /// The retry interval in milliseconds, plus one; 0 until requested.
    retry_ms: AtomicU64,
    requested: Notify,
}

impl StreamClose {
    /// A signal not yet given.
    pub fn new() -> Self {
        Self::default()
    }

    fn request(&self, retry: Duration) {
        let ms = u64::try_from(retry.as_millis()).unwrap_or(u64::MAX - 1);
        self.inner
            .retry_ms
            .store(ms.saturating_add(1), Ordering::SeqCst);
        self.inner.requested.notify_one();
    }

    /// The retry interval asked for, once the handler asked to close.
    pub fn requested_retry(&self) -> Option<Duration> {
        match self.inner.retry_ms.load(Ordering::SeqCst) {
            0 => None,
            ms => Some(Duration::from_millis(ms - 1)),
        }
    }

    /// Completes once the handler asks to close the stream, with the retry
    /// interval it gave.
    pub async fn requested(&self) -> Duration {
        loop {
            if let Some(retry) = self.requested_retry() {
                return retry;
            }
            self.inner.requested.notified().await;
        }
    }
}
