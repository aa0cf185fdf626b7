//! The outcome record: with single use on, what the round that consumed a
//! state answered is kept under the state's fingerprint until the state
//! expires, so a retry whose answer was lost gets that answer again instead
//! of a refusal, and the handler runs once.
//!
//! [`StateGate::open_round`](super::StateGate::open_round) claims the
//! round and hands out a [`Ticket`]; the round's answer is recorded through
//! it. This module holds the settings, the ticket and the encoding of a
//! recorded answer.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use crate::logged::Wire;
use crate::schema::{ErrorObject, McpError};
use crate::state::ReplayGuard;

/// The default largest answer recorded (64 KiB).
#[doc(hidden)]
pub const DEFAULT_MAX_OUTCOME_BYTES: usize = 64 * 1024;
/// The default bound on how long a duplicate waits for the first use's
/// answer (30 s).
#[doc(hidden)]
pub const DEFAULT_DUPLICATE_WAIT: Duration = Duration::from_secs(30);

/// How the outcome of a state's consuming round is kept (with a replay
/// guard only; see the [`state`](crate::state) guide).
///
/// On by default whenever single use is: without it, a retry whose answer
/// was lost on the way is refused as a replay, and the user's last step is
/// lost although it ran. An answer larger than
/// [`max_bytes`](Self::max_bytes) is not recorded (a duplicate is then
/// refused, and the log says why).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutcomeRecord {
    max_bytes: usize,
    duplicate_wait: Duration,
}

/// The former name of [`OutcomeRecord`].
#[deprecated(
    since = "0.1.0",
    note = "renamed `OutcomeRecord`: `Outcome` is a handler's result"
)]
pub type Outcomes = OutcomeRecord;

impl Default for OutcomeRecord {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_MAX_OUTCOME_BYTES,
            duplicate_wait: DEFAULT_DUPLICATE_WAIT,
        }
    }
}

impl OutcomeRecord {
    /// No outcome is recorded: every later use of a state is refused.
    pub fn off() -> Self {
        Self {
            max_bytes: 0,
            ..Self::default()
        }
    }

    /// Records answers of up to `bytes` (64 KiB by default);
    /// 0 records none.
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// How long a duplicate that arrives while the first use still runs
    /// waits for its answer (30 s by default); past it, the
    /// duplicate gets `-32603` and may retry.
    pub fn duplicate_wait(mut self, wait: Duration) -> Self {
        self.duplicate_wait = wait;
        self
    }

    /// Whether any outcome is recorded.
    pub(crate) fn on(&self) -> bool {
        self.max_bytes > 0
    }

    /// See [`duplicate_wait`](Self::duplicate_wait).
    pub(crate) fn wait(&self) -> Duration {
        self.duplicate_wait
    }
}

/// The right, and the duty, to record the answer of a round that claimed
/// its state first. Dropped unrecorded (the request was cancelled), it
/// records that there is no answer, so duplicates are refused instead of
/// waiting.
pub(crate) struct Ticket<'t> {
    guard: Arc<dyn ReplayGuard>,
    fingerprint: [u8; 32],
    /// The digest of the answers the state was claimed with.
    answers: [u8; 32],
    expires_at: u64,
    max_bytes: usize,
    /// The request's method and target, for the log.
    method: Cow<'t, str>,
    target: Cow<'t, str>,
    recorded: bool,
}

impl<'t> Ticket<'t> {
    pub(crate) fn new(
        guard: Arc<dyn ReplayGuard>,
        fingerprint: [u8; 32],
        answers: [u8; 32],
        expires_at: u64,
        outcomes: &OutcomeRecord,
        method: Cow<'t, str>,
        target: Cow<'t, str>,
    ) -> Self {
        Self {
            guard,
            fingerprint,
            answers,
            expires_at,
            max_bytes: outcomes.max_bytes,
            method,
            target,
            recorded: false,
        }
    }

    /// Records `answer` (or, for `None`, that there is none to hand out).
    /// An answer above the size limit, or one the guard has no room for,
    /// is not recorded; the log says so.
    pub(crate) async fn record(mut self, answer: Option<&Result<String, McpError>>) {
        self.recorded = true;
        let encoded = answer.map(encode);
        let kept = match &encoded {
            Some(bytes) if bytes.len() > self.max_bytes => {
                tracing::warn!(
                    method = %Wire(&self.method),
                    target = %Wire(&self.target),
                    bytes = bytes.len(),
                    limit = self.max_bytes,
                    "the answer of a consumed requestState is above the outcome record's \
                     limit and is not recorded: a duplicate retry will be refused"
                );
                None
            }
            other => other.as_deref(),
        };
        match self
            .guard
            .record_outcome(&self.fingerprint, &self.answers, kept, self.expires_at)
            .await
        {
            Ok(false) if kept.is_some() => tracing::warn!(
                method = %Wire(&self.method),
                target = %Wire(&self.target),
                "the replay guard had no room for the answer of a consumed requestState: \
                 a duplicate retry will be refused"
            ),
            Ok(_) => {}
            Err(error) => tracing::warn!(
                method = %Wire(&self.method),
                target = %Wire(&self.target),
                %error,
                "could not record the answer of a consumed requestState: \
                 a duplicate retry will be refused or wait"
            ),
        }
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if self.recorded {
            return;
        }
        tracing::info!(
            method = %Wire(&self.method),
            target = %Wire(&self.target),
            "a round that consumed a requestState ended without an answer (cancelled): \
             a duplicate retry will be refused"
        );
        let (guard, fingerprint, answers, expires_at) = (
            Arc::clone(&self.guard),
            self.fingerprint,
            self.answers,
            self.expires_at,
        );
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = guard
                    .record_outcome(&fingerprint, &answers, None, expires_at)
                    .await;
            });
        }
    }
}

/// A recorded answer: `R` and the serialised result, or `E` and the error
/// object as JSON.
fn encode(answer: &Result<String, McpError>) -> Vec<u8> {
    match answer {
        Ok(result) => {
            // Allocated once, at its size.
            let mut bytes = Vec::with_capacity(1 + result.len());
            bytes.push(b'R');
            bytes.extend_from_slice(result.as_bytes());
            bytes
        }
        Err(error) => {
            let mut bytes = vec![b'E'];
            bytes.extend(serde_json::to_vec(&error.to_object()).unwrap_or_default());
            bytes
        }
    }
}

/// The answer recorded as `bytes`; `-32603` for bytes this server did not
/// write.
pub(crate) fn decode(bytes: &[u8]) -> Result<String, McpError> {
    let unreadable = || McpError::internal("a recorded answer is unreadable");
    match bytes.split_first() {
        Some((b'R', result)) => String::from_utf8(result.to_vec()).map_err(|_| unreadable()),
        Some((b'E', error)) => Err(McpError::Other(
            serde_json::from_slice::<ErrorObject>(error).map_err(|_| unreadable())?,
        )),
        _ => Err(unreadable()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_survive_their_encoding() {
        let result = Ok::<_, McpError>(r#"{"content":[]}"#.to_owned());
        assert_eq!(decode(&encode(&result)).ok(), result.ok());
        let error = McpError::invalid_params("nope");
        match decode(&encode(&Err(error.clone()))) {
            Err(McpError::Other(object)) => assert_eq!(object, error.to_object()),
            other => panic!("{other:?}"),
        }
        assert!(decode(b"").is_err());
        assert!(decode(b"X{}").is_err());
        assert!(decode(b"E\x7b").is_err());
    }
}
