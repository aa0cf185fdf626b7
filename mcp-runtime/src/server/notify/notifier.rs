//! The way out of a request: the notifications and requests its handler
//! sends before the response, and the signal that closes its stream early.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{Notify, mpsc};

use super::lazy::{LazyNotes, LazyOut, WeakLazyOut, lazy_channel};
use crate::schema::JsonRpcNotification;

/// Carries the notifications a handler emits (progress, log messages) to
/// the transport, already serialised. A disabled notifier drops them.
#[derive(Debug, Clone, Default)]
pub struct Notifier {
    out: Option<Out>,
    close: Option<StreamClose>,
}

/// Where a notifier's messages go.
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
enum Out {
    /// A channel the transport made.
    Channel(mpsc::Sender<String>),
    /// A channel the first message makes ([`Notifier::lazy`]).
    Lazy(LazyOut),
}

/// A [`Notifier`] that does not hold its stream open: it reaches the
/// client only while the request is still being answered.
#[derive(Debug)]
pub(crate) enum WeakNotifier {
    /// Of a [`Notifier::new`].
    Channel(mpsc::WeakSender<String>),
    /// Of a [`Notifier::lazy`].
    Lazy(WeakLazyOut),
}

impl WeakNotifier {
    /// The notifier, while its request is still being answered and the
    /// client still listens.
    pub(crate) fn upgrade(&self) -> Option<Notifier> {
        let out = match self {
            Self::Channel(tx) => Out::Channel(tx.upgrade()?),
            Self::Lazy(out) => Out::Lazy(out.upgrade()?),
        };
        Some(Notifier::through(out)).filter(|notifier| !notifier.is_closed())
    }
}

impl Notifier {
    /// A notifier that sends serialised notifications on `tx`.
    pub fn new(tx: mpsc::Sender<String>) -> Self {
        Self::through(Out::Channel(tx))
    }

    /// A notifier whose channel, of `capacity` queued messages, its first
    /// message makes, and the transport's side of it: a request that
    /// never notifies allocates no channel.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn lazy(capacity: usize) -> (Self, LazyNotes) {
        let (out, notes) = lazy_channel(capacity);
        (Self::through(Out::Lazy(out)), notes)
    }

    /// A notifier that sends to `out`.
    fn through(out: Out) -> Self {
        Self {
            out: Some(out),
            close: None,
        }
    }

    /// A notifier that drops everything (the transport cannot stream).
    pub fn disabled() -> Self {
        Self {
            out: None,
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
            Some(close) if self.out.is_some() => {
                close.request(retry);
                true
            }
            _ => false,
        }
    }

    /// Whether notifications reach the client (the transport can stream).
    pub fn is_enabled(&self) -> bool {
        self.out.is_some()
    }

    /// Whether nothing sent now can reach the client any more (disabled,
    /// or the stream it fed is gone).
    pub(crate) fn is_closed(&self) -> bool {
        match &self.out {
            None => true,
            Some(Out::Channel(tx)) => tx.is_closed(),
            Some(Out::Lazy(out)) => out.is_closed(),
        }
    }

    /// A handle that reaches this stream without keeping it open: the
    /// transport answers the request once every strong notifier is gone.
    pub(crate) fn downgrade(&self) -> Option<WeakNotifier> {
        match self.out.as_ref()? {
            Out::Channel(tx) => Some(WeakNotifier::Channel(tx.downgrade())),
            Out::Lazy(out) => Some(WeakNotifier::Lazy(out.downgrade())),
        }
    }

    /// Sends one message, already serialised (a request to the client).
    pub(crate) async fn send_json(&self, json: String) -> bool {
        match &self.out {
            Some(Out::Channel(tx)) => tx.send(json).await.is_ok(),
            Some(Out::Lazy(out)) => out.send(json).await,
            None => false,
        }
    }

    pub(crate) async fn send<P: Serialize>(&self, method: &str, params: P) -> bool {
        if self.out.is_none() {
            return false;
        }
        match serde_json::to_string(&JsonRpcNotification::new(method, params)) {
            Ok(line) => self.send_json(line).await,
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
