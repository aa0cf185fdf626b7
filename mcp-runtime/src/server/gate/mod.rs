//! Both ends of `requestState`, in one place: the state gate.
//!
//! [`StateGate::check`] binds the server's signer to the request (caller,
//! method, target, arguments digest; the digest is taken only when a state
//! is echoed or handed out) and verifies the echoed state **before** the
//! handler runs; [`StateGate::open_round`]
//! claims it with the replay guard, for a round whose answer the outcome
//! record keeps for duplicates ([`outcomes`]), and [`StateGate::open`]
//! checks and claims in one step. What passes is
//! a [`Verified`], which only this module can make: the payload the
//! handler resumes from and the bound signer. [`StateGate::seal`] signs
//! the resume value a handler handed back **after** it returns, with that
//! signer. Two more doors lead to a payload, both without a token on the
//! wire: [`StateGate::open_kept`] (a state the server kept itself, in a
//! task's record) and [`carry`] (a 2025-era client's bridged rounds, whose
//! next state never leaves the process, so it is neither signed nor
//! verified, and costs the replay guard nothing).
//!
//! Nothing else in the server verifies or signs a state. This room uses no
//! other room of the server: only `state`, `schema` and what the crate
//! knows of the request (`receive_context`, `logged`).

mod outcomes;
mod verified;

pub(crate) use outcomes::Ticket;
#[allow(deprecated)]
pub use outcomes::{DEFAULT_DUPLICATE_WAIT, DEFAULT_MAX_OUTCOME_BYTES, OutcomeRecord, Outcomes};
pub(crate) use verified::{NextState, Sealed, Verified};

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::logged::Wire;
use crate::receive_context::ReceiveContext;
use crate::schema::McpError;
use crate::state::{
    BindingRequest, BoundArguments, ReplayError, ReplayGuard, RequestStateSigner, RoundClaim,
    StateError, VerifiedState,
};

/// The server's request-state settings: its signer, its replay guard (single
/// use) and how the answer of a consuming round is kept. Cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct StateGate {
    signer: Option<RequestStateSigner>,
    replay_guard: Option<Arc<dyn ReplayGuard>>,
    outcomes: OutcomeRecord,
}

/// A request whose echoed state the gate checked ([`StateGate::check`]) and
/// has yet to claim: its method and target (for the log and the outcome
/// record), the signer bound to it, and the state as verified.
pub(crate) struct Checked<'t> {
    method: Cow<'t, str>,
    target: Cow<'t, str>,
    signer: Option<RequestStateSigner>,
    verified: Option<VerifiedState>,
}

impl Checked<'_> {
    /// The same, owning its method and target (to move onto a task).
    pub(crate) fn into_owned(self) -> Checked<'static> {
        Checked {
            method: Cow::Owned(self.method.into_owned()),
            target: Cow::Owned(self.target.into_owned()),
            signer: self.signer,
            verified: self.verified,
        }
    }

    /// The target: the tool name, prompt name or resource URI.
    pub(crate) fn target(&self) -> &str {
        &self.target
    }
}

impl<'t> Checked<'t> {
    /// The state this request echoes, for the replay guard to claim; or,
    /// when it echoes none, the round's [`Verified`] at once (nothing to
    /// claim). The one place that tells the two apart.
    fn echoed(self) -> Result<Echoed<'t>, Verified> {
        let Checked {
            method,
            target,
            signer,
            verified,
        } = self;
        match verified {
            Some(verified) => Ok(Echoed {
                method,
                target,
                signer,
                verified,
            }),
            None => Err(Verified::stateless(signer)),
        }
    }
}

/// A checked request that echoes a state ([`Checked::echoed`]).
struct Echoed<'t> {
    method: Cow<'t, str>,
    target: Cow<'t, str>,
    signer: Option<RequestStateSigner>,
    verified: VerifiedState,
}

impl Echoed<'_> {
    /// The round's [`Verified`], on a server without single use: nothing
    /// to claim.
    fn unclaimed(self) -> Verified {
        Verified {
            payload: Some(self.verified.into_payload()),
            signer: self.signer,
        }
    }
}

/// A round's opening ([`StateGate::open_round`]): decided at once, or a
/// claim to wait for.
pub(crate) enum Opening<'a, 't> {
    /// Nothing to claim: no state echoed, or no replay guard.
    Now(Opened<'t>),
    /// The replay guard's claim of the echoed state.
    Claim(crate::BoxFuture<'a, Result<Opened<'t>, McpError>>),
}

/// What the gate decided for a round whose answer may be recorded.
pub(crate) enum Opened<'t> {
    /// Run the handler with this state; with a ticket when its answer is
    /// to be recorded (boxed: only a retry to a server with single use has
    /// one, and every round's future carries this value).
    Run(Verified, Option<Box<Ticket<'t>>>),
    /// A duplicate of a round already run: the answer recorded for it.
    Replayed(Result<String, McpError>),
}

#[cfg(feature = "tasks")]
/// A state the server kept itself (a task's record): a token it signed,
/// verified again like an echoed one, or the payload, trusted as it is.
pub(crate) enum Kept<'a> {
    /// A token, verified under the request's binding.
    Token(&'a str),
    /// A payload that never left the server.
    Payload(Vec<u8>),
}

impl StateGate {
    /// The gate of a server with these settings.
    pub(crate) fn new(
        signer: Option<RequestStateSigner>,
        replay_guard: Option<Arc<dyn ReplayGuard>>,
        outcomes: OutcomeRecord,
    ) -> Self {
        Self {
            signer,
            replay_guard,
            outcomes,
        }
    }

    /// Whether the server signs states (then arguments are bound).
    pub(crate) fn signs(&self) -> bool {
        self.signer.is_some()
    }

    /// Whether a round that echoes a state consumes it with its answer
    /// recorded: single use and the outcome record on.
    pub(crate) fn records_outcomes(&self) -> bool {
        self.signer.is_some() && self.replay_guard.is_some() && self.outcomes.on()
    }

    /// Binds the server's signer to `request` and verifies the echoed
    /// `state` under that binding, without claiming it yet. Any failure is
    /// the fixed `-32602`; the reason goes to the log only. Without a
    /// signer on the server nothing is verified: the echoed state reaches
    /// the handler raw ([`Ctx::request_state`]).
    ///
    /// What comes out keeps the method and the target, not the arguments:
    /// the bound signer holds their digest when a state was echoed, and
    /// otherwise a copy of their text to digest if the handler hands out a
    /// state (most calls do neither, and never digest), so the arguments
    /// move on to the handler whole.
    ///
    /// [`Ctx::request_state`]: crate::server::handler::Ctx::request_state
    pub(crate) fn check<'t>(
        &self,
        method: &'t str,
        target: &'t str,
        arguments: BoundArguments<'_>,
        receive: &ReceiveContext,
        state: Option<&str>,
    ) -> Result<Checked<'t>, McpError> {
        let request = BindingRequest {
            method,
            target,
            arguments,
        };
        let (signer, verified) = self.verify(&request, receive, state)?;
        Ok(Checked {
            method: Cow::Borrowed(method),
            target: Cow::Borrowed(target),
            signer,
            verified,
        })
    }

    /// [`Self::check`], then the claim of [`Self::claim`]: for a request
    /// whose answer is not recorded.
    #[cfg(feature = "tasks")]
    pub(crate) async fn open(
        &self,
        request: BindingRequest<'_>,
        receive: &ReceiveContext,
        state: Option<&str>,
    ) -> Result<Verified, McpError> {
        let checked = self.check(
            request.method,
            request.target,
            request.arguments,
            receive,
            state,
        )?;
        self.claim(checked).await
    }

    /// Claims a checked state with the replay guard (single use): what
    /// passes is the round's [`Verified`]. (Rounds whose answer may be
    /// recorded claim through [`Self::open_round`]; the task engine here.)
    #[cfg(feature = "tasks")]
    pub(crate) async fn claim(&self, checked: Checked<'_>) -> Result<Verified, McpError> {
        match checked.echoed() {
            Ok(echoed) => self.claim_echoed(echoed).await,
            Err(stateless) => Ok(stateless),
        }
    }

    /// [`Self::claim`] of a request that echoes a state.
    async fn claim_echoed(&self, echoed: Echoed<'_>) -> Result<Verified, McpError> {
        if let Some(guard) = &self.replay_guard {
            let (method, target, verified) = (&echoed.method, &echoed.target, &echoed.verified);
            match guard
                .claim(verified.fingerprint(), verified.expires_at())
                .await
            {
                Ok(true) => {}
                Ok(false) => return Err(refuse(method, target, &StateError::Replayed)),
                Err(error) => return Err(unrecorded(method, target, error)),
            }
        }
        Ok(echoed.unclaimed())
    }

    /// Opens a checked state's round: the claim of its state when it
    /// echoes one, for a round whose answer may be recorded. With single
    /// use and the outcome record on, the state's first use runs the round
    /// with a [`Ticket`] to record its answer through; a duplicate with the
    /// same `inputResponses` (`answers`) gets the recorded answer without
    /// running the handler (waiting, bounded, while the first use still
    /// runs), and one with other answers the fixed `-32602`.
    ///
    /// Decided at once ([`Opening::Now`]) when there is nothing to claim:
    /// no state echoed, or no replay guard. Only a claim waits, and it is
    /// boxed ([`Opening::Claim`]): the future of every call that opens a
    /// round stays small, as each request's future is moved into boxes,
    /// byte for byte (docs/benchmarks.md).
    pub(crate) fn open_round<'a, 't: 'a>(
        &'a self,
        checked: Checked<'t>,
        answers: Option<&str>,
    ) -> Opening<'a, 't> {
        let echoed = match checked.echoed() {
            Ok(echoed) => echoed,
            Err(stateless) => return Opening::Now(Opened::Run(stateless, None)),
        };
        let Some(guard) = &self.replay_guard else {
            return Opening::Now(Opened::Run(echoed.unclaimed(), None));
        };
        if !self.outcomes.on() {
            return Opening::Claim(Box::pin(async move {
                Ok(Opened::Run(self.claim_echoed(echoed).await?, None))
            }));
        }
        // Digested from the text as sent, in canonical form: no tree is
        // built for it (a handler that reads its answers decodes them from
        // the text too).
        let answers = BoundArguments::Text(answers.unwrap_or("{}")).digest();
        Opening::Claim(Box::pin(self.open_recorded(guard, echoed, answers)))
    }

    /// [`Self::open_round`] of a request that echoes a state, to a server
    /// whose replay guard is `guard` and that records outcomes; `answers`
    /// is the digest of the round's `inputResponses`.
    async fn open_recorded<'t>(
        &self,
        guard: &Arc<dyn ReplayGuard>,
        echoed: Echoed<'t>,
        answers: [u8; 32],
    ) -> Result<Opened<'t>, McpError> {
        let outcomes = &self.outcomes;
        let Echoed {
            method,
            target,
            signer,
            verified,
        } = echoed;
        let (fingerprint, expires_at) = (*verified.fingerprint(), verified.expires_at());
        // When this duplicate first found the round running: its wait is
        // bounded from there (no clock is read for a first use).
        let mut running_since: Option<Instant> = None;
        let mut pause = Duration::from_millis(10);
        loop {
            match guard.claim_round(&fingerprint, &answers, expires_at).await {
                Ok(RoundClaim::First) => break,
                Ok(RoundClaim::Recorded(answer)) => {
                    tracing::info!(
                        method = %Wire(&method),
                        target = %Wire(&target),
                        "a retry of a consumed requestState got the recorded answer"
                    );
                    return Ok(Opened::Replayed(outcomes::decode(&answer)));
                }
                Ok(RoundClaim::Refused) => {
                    return Err(refuse(&method, &target, &StateError::Replayed));
                }
                Ok(RoundClaim::Running) => {
                    let now = Instant::now();
                    if now.duration_since(*running_since.get_or_insert(now)) >= outcomes.wait() {
                        return Err(McpError::internal(
                            "the first use of this requestState is still running; the duplicate \
                             stopped waiting for its answer (it may retry)",
                        ));
                    }
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_millis(200));
                }
                Err(error) => return Err(unrecorded(&method, &target, error)),
            }
        }
        let ticket = Ticket::new(
            Arc::clone(guard),
            fingerprint,
            answers,
            expires_at,
            outcomes,
            method,
            target,
        );
        let verified = Verified {
            payload: Some(verified.into_payload()),
            signer,
        };
        Ok(Opened::Run(verified, Some(Box::new(ticket))))
    }

    /// The state a task's round resumes from: the one its record kept
    /// (`None`: none), under the binding of the call that made the task. A
    /// kept token is verified and claimed like an echoed one; a kept
    /// payload never left the server and is taken as it is.
    #[cfg(feature = "tasks")]
    pub(crate) async fn open_kept(
        &self,
        request: BindingRequest<'_>,
        receive: &ReceiveContext,
        kept: Option<Kept<'_>>,
    ) -> Result<Verified, McpError> {
        match kept {
            Some(Kept::Token(token)) => self.open(request, receive, Some(token)).await,
            Some(Kept::Payload(payload)) => {
                let mut verified = self.open(request, receive, None).await?;
                verified.payload = Some(payload);
                Ok(verified)
            }
            None => self.open(request, receive, None).await,
        }
    }

    /// Binds the server's signer to `request` and verifies `state`, if
    /// any: the bound signer (`None` without one) and the verified state
    /// (`None` without a state or a signer), or the fixed `-32602`.
    fn verify(
        &self,
        request: &BindingRequest<'_>,
        receive: &ReceiveContext,
        state: Option<&str>,
    ) -> Result<(Option<RequestStateSigner>, Option<VerifiedState>), McpError> {
        let Some(signer) = &self.signer else {
            return Ok((None, None));
        };
        // The request's time, read once: what the echoed state is checked
        // against and what the next one's lifetime counts from.
        let bound = signer.bind_request(request, receive, signer.now(), state.is_some());
        let verified = match state {
            Some(state) => Some(
                bound
                    .verify(state)
                    .map_err(|reason| refuse(request.method, request.target, &reason))?,
            ),
            None => None,
        };
        Ok((Some(bound), verified))
    }
}

/// The `requestState` to send with an input-required result, given the
/// round's [`Verified`] (whose bound signer signs it): the handler's resume
/// value signed under the request's binding, or the token it minted
/// itself, checked to verify under that binding (so a handler cannot hand
/// out a state bound to another call). Either failure is `-32603`: the
/// handler, not the client, is at fault.
pub(crate) fn seal(round: &Verified, next: NextState) -> Result<Option<Sealed>, McpError> {
    match (next, round.signer()) {
        (NextState::None, _) => Ok(None),
        (NextState::Resume(payload), Some(signer)) => signer
            .sign(&payload)
            .map(|t| Some(Sealed::Signed(t)))
            .map_err(|error| {
                McpError::internal(format!("could not sign the resume state: {error}"))
            }),
        (NextState::Resume(_), None) => Err(no_signer()),
        (NextState::Token(token), Some(signer)) => match signer.verify(&token) {
            Ok(_) => Ok(Some(Sealed::Opaque(token))),
            Err(reason) => Err(foreign_token(&reason)),
        },
        // Without a signer the state is the handler's own business.
        (NextState::Token(token), None) => Ok(Some(Sealed::Opaque(token))),
    }
}

/// The state the next round of a bridged request resumes from, carried in
/// process from the round before (`round`), with the same bound signer:
/// the resume value as it is, or the payload of a token the handler
/// minted, checked to verify under the request's binding as [`seal`]
/// checks it. On a server without a signer, a token goes on raw (the
/// second value, what the handler reads as the echoed state). The same
/// failures as [`seal`].
pub(crate) fn carry(
    round: &Verified,
    next: NextState,
) -> Result<(Verified, Option<String>), McpError> {
    let signer = round.signer.clone();
    let (payload, raw) = match (next, &signer) {
        (NextState::None, _) => (None, None),
        (NextState::Resume(payload), Some(_)) => (Some(payload), None),
        (NextState::Resume(_), None) => return Err(no_signer()),
        (NextState::Token(token), Some(signer)) => match signer.verify(&token) {
            Ok(verified) => (Some(verified.into_payload()), None),
            Err(reason) => return Err(foreign_token(&reason)),
        },
        (NextState::Token(token), None) => (None, Some(token)),
    };
    Ok((Verified { payload, signer }, raw))
}

fn no_signer() -> McpError {
    McpError::internal(
        "a handler returned a resume state or asked with ctx.ask, but the server has \
         no signer (set one with ServerBuilder::request_state_signer)",
    )
}

fn foreign_token(reason: &StateError) -> McpError {
    McpError::internal(format!(
        "a handler returned a requestState that does not verify under this \
         request's binding ({reason}); return the resume value instead, or mint \
         it with the context's signer"
    ))
}

/// A claim the guard could not record: fail closed, refused like a replay
/// when the guard is full, `-32603` when its store cannot be reached; the
/// handler never runs unrecorded.
fn unrecorded(method: &str, target: &str, error: ReplayError) -> McpError {
    match error {
        ReplayError::Full { capacity } => {
            refuse(method, target, &StateError::GuardFull { capacity })
        }
        error @ ReplayError::Unavailable(_) => McpError::internal(format!(
            "cannot check requestState for single use, refusing: {error}"
        )),
    }
}

fn refuse(method: &str, target: &str, reason: &StateError) -> McpError {
    tracing::warn!(
        method = %Wire(method),
        target = %Wire(target),
        %reason,
        "refused requestState"
    );
    McpError::InvalidRequestState
}
