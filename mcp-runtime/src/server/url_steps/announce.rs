//! Telling a 2025-era client that its URL step finished.
//!
//! 2025-11-25 names each URL-mode elicitation (`elicitationId`) and lets
//! the server announce its end with `notifications/elicitation/complete`.
//! When the bridge asks a 2025-era client a URL-mode request whose URL
//! carries the id of one of the caller's open steps, it registers here the
//! elicitation id and the stream it asked on. The announcement then goes
//! out exactly once, from whichever comes first in this process:
//!
//! - [`UrlSteps::complete`](super::UrlSteps::complete) called here;
//! - the handler seeing the step complete
//!   ([`Ctx::url_step_answer`](crate::server::handler::Ctx::url_step_answer),
//!   [`Ctx::wait_url_step`](crate::server::handler::Ctx::wait_url_step)),
//!   so the announcement precedes the result;
//! - the watch the bridge starts, which polls the store (a step completed
//!   on another instance, through Redis) until the step completes or
//!   expires, or the stream closes. A step has at most one watch, however
//!   often it is asked.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crate::schema::notification_methods;
use crate::server::notify::{Notifier, WeakNotifier};

/// The most announcements a process waits to make at once; beyond it a
/// URL step is still asked and tracked, only not announced.
pub(crate) const MAX_PENDING_ANNOUNCEMENTS: usize = 4_096;

/// The longest an announcement waits for room on a slow client's stream:
/// the application's web route that completed the step waits on it.
const ANNOUNCE_TIMEOUT: Duration = Duration::from_secs(1);

/// Steps asked of 2025-era clients, by step id, and the steps watched.
#[derive(Default)]
pub(crate) struct Announcements {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The announcements to make, by step id.
    pending: HashMap<String, Pending>,
    /// The steps a watch polls (at most [`MAX_PENDING_ANNOUNCEMENTS`]).
    watched: HashSet<String>,
}

struct Pending {
    elicitation_id: String,
    /// The stream of the request that asked: weak, so that waiting to
    /// announce never holds the request's response back.
    notifier: WeakNotifier,
}

/// `notifications/elicitation/complete`'s params.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CompleteParams<'a> {
    elicitation_id: &'a str,
}

impl Announcements {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Announces step `step_id`'s end on `notifier` under
    /// `elicitation_id`, once it completes, if its request is still being
    /// answered then. False when too many wait (or `notifier` cannot send).
    pub(crate) fn register(
        &self,
        step_id: &str,
        elicitation_id: &str,
        notifier: &Notifier,
    ) -> bool {
        let Some(notifier) = notifier.downgrade() else {
            return false;
        };
        let mut state = self.lock();
        let pending = &mut state.pending;
        if pending.len() >= MAX_PENDING_ANNOUNCEMENTS && !pending.contains_key(step_id) {
            return false;
        }
        let entry = Pending {
            elicitation_id: elicitation_id.to_owned(),
            notifier,
        };
        pending.insert(step_id.to_owned(), entry);
        true
    }

    /// Makes the caller `step_id`'s one watch: false when a watch already
    /// polls it (it serves the newest registration) or too many run.
    pub(crate) fn claim_watch(&self, step_id: &str) -> bool {
        let mut state = self.lock();
        if state.watched.len() >= MAX_PENDING_ANNOUNCEMENTS {
            return false;
        }
        state.watched.insert(step_id.to_owned())
    }

    /// For `step_id`'s watch: whether its end is still to be announced to
    /// a request still being answered (one that ended is forgotten). When
    /// not, the watch is over, in the same step, so that a registration
    /// made after this claims a watch of its own.
    pub(crate) fn keep_watching(&self, step_id: &str) -> bool {
        let mut state = self.lock();
        if Self::waits(&mut state, step_id) {
            return true;
        }
        state.watched.remove(step_id);
        false
    }

    /// Ends `step_id`'s watch and forgets its announcement (the step
    /// expired or is gone: nobody will hear of it).
    pub(crate) fn stop_watching(&self, step_id: &str) {
        let mut state = self.lock();
        state.pending.remove(step_id);
        state.watched.remove(step_id);
    }

    /// Whether an announcement for `step_id` waits on an open stream;
    /// forgets one whose request has been answered.
    fn waits(state: &mut State, step_id: &str) -> bool {
        match state.pending.get(step_id) {
            Some(waiting) if waiting.notifier.upgrade().is_none() => {
                state.pending.remove(step_id);
                false
            }
            Some(_) => true,
            None => false,
        }
    }

    /// [`Self::keep_watching`] without ending a watch.
    #[cfg(test)]
    fn is_pending(&self, step_id: &str) -> bool {
        Self::waits(&mut self.lock(), step_id)
    }

    /// Sends the announcement for `step_id`, if one waits: only the first
    /// call for a step sends, waiting at most [`ANNOUNCE_TIMEOUT`] for
    /// room on the client's stream.
    pub(crate) async fn announce(&self, step_id: &str) {
        let Some(pending) = self.lock().pending.remove(step_id) else {
            return;
        };
        let Some(notifier) = pending.notifier.upgrade() else {
            return;
        };
        let params = CompleteParams {
            elicitation_id: &pending.elicitation_id,
        };
        let sending = notifier.send(notification_methods::ELICITATION_COMPLETE, params);
        if tokio::time::timeout(ANNOUNCE_TIMEOUT, sending)
            .await
            .is_err()
        {
            tracing::warn!(
                "a URL step's completion was not announced: the client reads too slowly"
            );
        }
    }
}

/// The candidate step ids in `url`: runs of exactly 32 hex digits (the
/// shape of a step id), at most four.
pub(crate) fn step_ids_in(url: &str) -> impl Iterator<Item = &str> {
    url.split(|c: char| !c.is_ascii_hexdigit())
        .filter(|run| super::is_step_id(run))
        .take(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_step_shaped_runs_only() {
        let id = "0123456789abcdef0123456789abcdef";
        let url = format!("https://pay.example/{id}?x=1&long={id}00&s=ab");
        assert_eq!(step_ids_in(&url).collect::<Vec<_>>(), [id]);
        assert_eq!(step_ids_in("https://example.com/").count(), 0);
    }

    #[tokio::test]
    async fn announces_once_on_the_registered_stream() {
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        let announcements = Announcements::default();
        let notifier = Notifier::new(tx);
        assert!(announcements.register("s1", "e1", &notifier));
        assert!(announcements.is_pending("s1"));
        announcements.announce("s1").await;
        announcements.announce("s1").await;
        let sent: serde_json::Value =
            serde_json::from_str(&rx.try_recv().unwrap_or_default()).unwrap_or_default();
        assert_eq!(sent["method"], "notifications/elicitation/complete");
        assert_eq!(sent["params"]["elicitationId"], "e1");
        assert!(rx.try_recv().is_err(), "announced once");
        assert!(!announcements.is_pending("s1"));
    }

    #[tokio::test]
    async fn waiting_to_announce_never_holds_the_response_back() {
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        let announcements = Announcements::default();
        let notifier = Notifier::new(tx);
        assert!(announcements.register("s1", "e1", &notifier));
        // The request is answered: its last notifier goes, the stream ends.
        drop(notifier);
        assert_eq!(rx.recv().await, None);
        assert!(!announcements.is_pending("s1"), "forgotten");
        announcements.announce("s1").await;
    }

    #[test]
    fn a_step_has_one_watch_until_nobody_waits() {
        let (tx, _rx) = tokio::sync::mpsc::channel(4);
        let announcements = Announcements::default();
        let notifier = Notifier::new(tx);
        assert!(announcements.register("s1", "e1", &notifier));
        assert!(announcements.claim_watch("s1"));
        // Asked again: the running watch serves the new question.
        assert!(announcements.register("s1", "e2", &notifier));
        assert!(!announcements.claim_watch("s1"));
        assert!(announcements.keep_watching("s1"));
        // The request is answered: the watch ends, and a later question
        // gets a watch of its own.
        drop(notifier);
        assert!(!announcements.keep_watching("s1"));
        assert!(announcements.claim_watch("s1"));
        announcements.stop_watching("s1");
        assert!(announcements.claim_watch("s1"));
    }

    #[test]
    fn a_disabled_notifier_is_not_registered() {
        let announcements = Announcements::default();
        assert!(!announcements.register("s1", "e1", &Notifier::disabled()));
        assert!(!announcements.is_pending("s1"));
    }
}
