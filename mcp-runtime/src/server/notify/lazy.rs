//! A request's notification channel, made by its first notification.
//!
//! Every client that accepts an event stream may get one, but most
//! requests end without notifying. A channel costs two allocations (one of
//! them cache-aligned) and their release, about 2k instructions a request;
//! this small shared state costs one, and makes the channel only when a
//! handler sends. The notifiers hold [`LazyOut`] handles; the transport
//! holds [`LazyNotes`] and takes the receiver once the first note is in it.
// Only the HTTP transport makes lazy notifiers.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use std::fmt;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll, Waker};

use tokio::sync::mpsc;

/// What the notifiers and the transport share.
struct Shared {
    state: Mutex<State>,
    /// How many notes the channel holds before a sender waits.
    capacity: usize,
}

struct State {
    /// How many [`LazyOut`] handles are alive.
    notifiers: usize,
    /// The channel's sender, from the first note until the last notifier
    /// is gone (which ends the receiver's stream).
    tx: Option<mpsc::Sender<String>>,
    /// The receiver, from the first note until the transport takes it.
    rx: Option<mpsc::Receiver<String>>,
    /// Whether the transport still listens: false once it answered without
    /// taking the receiver.
    listening: bool,
    /// The transport's task, waiting for the first note or the last
    /// notifier.
    waker: Option<Waker>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays consistent across a panic: each change is one
        // assignment.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A notifier's way out: makes the channel on its first note.
pub(crate) struct LazyOut(Arc<Shared>);

/// A [`LazyOut`] that does not count as a notifier.
pub(crate) struct WeakLazyOut(Weak<Shared>);

/// The transport's side: the receiver once a note came, or word that every
/// notifier is gone without one.
pub(crate) struct LazyNotes(Arc<Shared>);

/// A notifier and the transport's side of its channel, which a first note
/// of up to `capacity` queued notes opens.
pub(crate) fn lazy_channel(capacity: usize) -> (LazyOut, LazyNotes) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            notifiers: 1,
            tx: None,
            rx: None,
            listening: true,
            waker: None,
        }),
        capacity: capacity.max(1),
    });
    (LazyOut(Arc::clone(&shared)), LazyNotes(shared))
}

impl LazyOut {
    /// Sends one serialised message; `false` when it cannot reach the
    /// client any more.
    pub(crate) async fn send(&self, json: String) -> bool {
        let tx = {
            let mut state = self.0.lock();
            if !state.listening {
                return false;
            }
            match &state.tx {
                Some(tx) => tx.clone(),
                None => {
                    // A new channel has room: the first note is in it
                    // before the transport looks.
                    let (tx, rx) = mpsc::channel(self.0.capacity);
                    let sent = tx.try_send(json).is_ok();
                    state.tx = Some(tx);
                    state.rx = Some(rx);
                    let waker = state.waker.take();
                    drop(state);
                    if let Some(waker) = waker {
                        waker.wake();
                    }
                    return sent;
                }
            }
        };
        tx.send(json).await.is_ok()
    }

    /// Whether nothing sent now can reach the client.
    pub(crate) fn is_closed(&self) -> bool {
        let state = self.0.lock();
        !state.listening || state.tx.as_ref().is_some_and(mpsc::Sender::is_closed)
    }

    /// A handle that reaches the stream without keeping it open.
    pub(crate) fn downgrade(&self) -> WeakLazyOut {
        WeakLazyOut(Arc::downgrade(&self.0))
    }
}

impl Clone for LazyOut {
    fn clone(&self) -> Self {
        self.0.lock().notifiers += 1;
        Self(Arc::clone(&self.0))
    }
}

impl Drop for LazyOut {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.notifiers = state.notifiers.saturating_sub(1);
        if state.notifiers > 0 {
            return;
        }
        // The last notifier: the receiver's stream ends after what is
        // queued, and a transport still waiting learns that no note comes.
        let tx = state.tx.take();
        let waker = state.waker.take();
        drop(state);
        drop(tx);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl fmt::Debug for LazyOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LazyOut")
    }
}

impl WeakLazyOut {
    /// A notifier again, while another is still alive.
    pub(crate) fn upgrade(&self) -> Option<LazyOut> {
        let shared = self.0.upgrade()?;
        let mut state = shared.lock();
        if state.notifiers == 0 {
            return None;
        }
        state.notifiers += 1;
        drop(state);
        Some(LazyOut(shared))
    }
}

impl fmt::Debug for WeakLazyOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WeakLazyOut")
    }
}

impl LazyNotes {
    /// The receiver, with the first note in it, once a notifier sent one;
    /// `None` once every notifier is gone without sending.
    pub(crate) async fn opened(&mut self) -> Option<mpsc::Receiver<String>> {
        poll_fn(|cx| self.poll_opened(cx)).await
    }

    fn poll_opened(&mut self, cx: &mut Context<'_>) -> Poll<Option<mpsc::Receiver<String>>> {
        let mut state = self.0.lock();
        if let Some(rx) = state.rx.take() {
            return Poll::Ready(Some(rx));
        }
        if state.notifiers == 0 {
            return Poll::Ready(None);
        }
        match &mut state.waker {
            Some(waker) => waker.clone_from(cx.waker()),
            None => state.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// The receiver, if a note came: for a handler that has finished.
    pub(crate) fn take(&mut self) -> Option<mpsc::Receiver<String>> {
        self.0.lock().rx.take()
    }
}

impl Drop for LazyNotes {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        // Taken while notifiers remain (a sender and no receiver here): the
        // receiver lives on in the event stream, and its own drop closes
        // the channel. Otherwise nothing sent from now on reaches the
        // client.
        if state.rx.is_none() && state.tx.is_some() {
            return;
        }
        state.listening = false;
        let rx = state.rx.take();
        let tx = state.tx.take();
        drop(state);
        drop((rx, tx));
    }
}

impl fmt::Debug for LazyNotes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LazyNotes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt as _;

    #[tokio::test]
    async fn the_first_note_opens_the_channel_with_the_note_in_it() {
        let (out, mut notes) = lazy_channel(4);
        assert!(notes.take().is_none());
        assert!(out.send("one".to_owned()).await);
        assert!(out.send("two".to_owned()).await);
        let mut rx = notes.opened().await.expect("a note came");
        assert_eq!(rx.try_recv().ok().as_deref(), Some("one"));
        assert_eq!(rx.recv().await.as_deref(), Some("two"));
        // The receiver's stream ends with the last notifier.
        let clone = out.clone();
        drop(out);
        assert!(clone.send("three".to_owned()).await);
        drop(clone);
        assert_eq!(rx.recv().await.as_deref(), Some("three"));
        assert_eq!(rx.recv().await, None);
    }

    #[tokio::test]
    async fn a_transport_learns_that_every_notifier_went_without_a_note() {
        let (out, mut notes) = lazy_channel(4);
        let clone = out.clone();
        assert!(notes.opened().now_or_never().is_none());
        drop(out);
        assert!(notes.opened().now_or_never().is_none());
        let waiting = tokio::spawn(async move { notes.opened().await.is_none() });
        tokio::task::yield_now().await;
        drop(clone);
        assert!(waiting.await.expect("the waiting task ran"));
    }

    #[tokio::test]
    async fn nothing_reaches_a_transport_that_answered_without_a_note() {
        let (out, notes) = lazy_channel(4);
        assert!(!out.is_closed());
        drop(notes);
        assert!(out.is_closed());
        assert!(!out.send("late".to_owned()).await);
    }

    #[tokio::test]
    async fn a_taken_receiver_keeps_the_stream_open_and_its_drop_closes_it() {
        let (out, mut notes) = lazy_channel(4);
        assert!(out.send("one".to_owned()).await);
        let rx = notes.take().expect("a note came");
        drop(notes);
        assert!(!out.is_closed());
        assert!(out.send("two".to_owned()).await);
        drop(rx);
        assert!(out.is_closed());
        assert!(!out.send("three".to_owned()).await);
    }

    #[tokio::test]
    async fn a_weak_handle_upgrades_only_while_a_notifier_lives() {
        let (out, mut notes) = lazy_channel(4);
        let weak = out.downgrade();
        let again = weak.upgrade().expect("a notifier lives");
        drop(out);
        assert!(
            notes.opened().now_or_never().is_none(),
            "the upgraded one counts"
        );
        drop(again);
        assert!(weak.upgrade().is_none());
        assert_eq!(notes.opened().await.map(|_| ()), None);
    }

    #[tokio::test]
    async fn a_full_channel_makes_the_sender_wait() {
        let (out, mut notes) = lazy_channel(1);
        assert!(out.send("one".to_owned()).await);
        assert!(out.send("two".to_owned()).now_or_never().is_none());
        let mut rx = notes.take().expect("a note came");
        assert_eq!(rx.recv().await.as_deref(), Some("one"));
        assert!(out.send("two".to_owned()).await);
    }
}
