//! Both ends of `requestState`, in one place.
//!
//! [`open`] binds the server's signer to the request (caller, method,
//! target, arguments digest: computed here, once) and verifies the echoed
//! state, claiming it with the replay guard, **before** the handler runs;
//! [`open_round`] does the same for a round whose answer the outcome
//! record keeps for duplicates ([`super::outcomes`]). [`seal`] signs the
//! resume value the handler handed back **after** it returns, with the
//! same bound signer, which stays in the request's data in between.
//! Nothing else in the server verifies or signs a state.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ask::NextState;
use super::context::RequestData;
use super::outcomes::{self, Ticket};
use super::registry::Registry;
use crate::logged::Wire;
use crate::schema::{JsonObject, McpError};
use crate::state::{
    BindingRequest, ReplayError, RequestStateSigner, RoundClaim, StateError, VerifiedState,
    arguments_digest,
};

/// Binds the server's signer to `request` and verifies the echoed state in
/// `data` under that binding. The verified payload and the bound signer go
/// into `data` (the signer for [`seal`], and for handlers that mint by
/// hand). Any failure is the fixed `-32602`; the reason goes to the log
/// only. Without a signer on the server, nothing happens: the echoed state
/// reaches the handler unverified.
pub(crate) async fn open(
    registry: &Registry,
    request: BindingRequest<'_>,
    data: &mut RequestData,
) -> Result<(), McpError> {
    let Some(verified) = verify(registry, &request, data)? else {
        return Ok(());
    };
    if let Some(guard) = &registry.replay_guard {
        match guard
            .claim(verified.fingerprint(), verified.expires_at())
            .await
        {
            Ok(true) => {}
            Ok(false) => return Err(refuse(&request, &StateError::Replayed)),
            Err(error) => return Err(unrecorded(&request, error)),
        }
    }
    data.state_payload = Some(verified.into_payload());
    Ok(())
}

/// Like [`open`], for a round whose answer is recorded: with single use
/// and the outcome record on, the state's first use runs the round with a
/// [`Ticket`] to record its answer through; a duplicate with the same
/// `inputResponses` gets the recorded answer without running the handler
/// (waiting, bounded, while the first use still runs), and one with other
/// answers the fixed `-32602`.
pub(crate) async fn open_round(
    registry: &Registry,
    request: BindingRequest<'_>,
    data: &mut RequestData,
) -> Result<Opened, McpError> {
    let outcomes = &registry.outcomes;
    let (Some(guard), true) = (&registry.replay_guard, outcomes.on()) else {
        return open(registry, request, data)
            .await
            .map(|()| Opened::Run(None));
    };
    let Some(verified) = verify(registry, &request, data)? else {
        return Ok(Opened::Run(None));
    };
    let answers = answers_digest(data);
    let (fingerprint, expires_at) = (*verified.fingerprint(), verified.expires_at());
    let deadline = Instant::now() + outcomes.wait();
    let mut pause = Duration::from_millis(10);
    loop {
        match guard.claim_round(&fingerprint, &answers, expires_at).await {
            Ok(RoundClaim::First) => break,
            Ok(RoundClaim::Recorded(answer)) => {
                tracing::info!(
                    method = %Wire(request.method),
                    target = %Wire(request.target),
                    "a retry of a consumed requestState got the recorded answer"
                );
                return Ok(Opened::Replayed(outcomes::decode(&answer)));
            }
            Ok(RoundClaim::Refused) => return Err(refuse(&request, &StateError::Replayed)),
            Ok(RoundClaim::Running) if Instant::now() < deadline => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(200));
            }
            Ok(RoundClaim::Running) => {
                return Err(McpError::internal(
                    "the first use of this requestState is still running; the duplicate \
                     stopped waiting for its answer (it may retry)",
                ));
            }
            Err(error) => return Err(unrecorded(&request, error)),
        }
    }
    let ticket = Ticket::new(
        Arc::clone(guard),
        fingerprint,
        expires_at,
        outcomes,
        request.method,
        request.target,
    );
    data.state_payload = Some(verified.into_payload());
    Ok(Opened::Run(Some(ticket)))
}

/// What the gate decided for a round.
pub(crate) enum Opened {
    /// Run the handler; with a ticket when its answer is to be recorded.
    Run(Option<Ticket>),
    /// A duplicate of a round already run: the answer recorded for it.
    Replayed(Result<String, McpError>),
}

/// Binds the server's signer to `request` (into `data`) and verifies the
/// echoed state, if any: the verified state, `None` without a state or a
/// signer, the fixed `-32602` for a state that fails.
fn verify(
    registry: &Registry,
    request: &BindingRequest<'_>,
    data: &mut RequestData,
) -> Result<Option<VerifiedState>, McpError> {
    let Some(signer) = &registry.signer else {
        return Ok(None);
    };
    // The request's time, read once: what the echoed state is checked
    // against and what the next one's lifetime counts from.
    let bound = signer.bind_at(signer.bind_for(request, &data.receive), signer.now());
    let verified = match &data.request_state {
        Some(state) => Some(
            bound
                .verify(state)
                .map_err(|reason| refuse(request, &reason))?,
        ),
        None => None,
    };
    data.signer = Some(bound);
    Ok(verified)
}

/// A claim the guard could not record: fail closed, refused like a replay
/// when the guard is full, `-32603` when its store cannot be reached; the
/// handler never runs unrecorded.
fn unrecorded(request: &BindingRequest<'_>, error: ReplayError) -> McpError {
    match error {
        ReplayError::Full { capacity } => refuse(request, &StateError::GuardFull { capacity }),
        error @ ReplayError::Unavailable(_) => McpError::internal(format!(
            "cannot check requestState for single use, refusing: {error}"
        )),
    }
}

/// The digest of the round's `inputResponses` (canonical JSON), which a
/// duplicate must match to get the recorded answer.
fn answers_digest(data: &RequestData) -> [u8; 32] {
    match &data.input_responses {
        Some(answers) => arguments_digest(answers.tree()),
        None => arguments_digest(&JsonObject::new()),
    }
}

/// The `requestState` to send with an input-required result, given the
/// request's bound signer (`None` on a server without one): the handler's
/// resume value signed under the request's binding, or the token it minted
/// itself, checked to verify under that binding (so a handler cannot hand
/// out a state bound to another call). Either failure is `-32603`: the
/// handler, not the client, is at fault.
pub(crate) fn seal(
    signer: Option<&RequestStateSigner>,
    next: NextState,
) -> Result<Option<Sealed>, McpError> {
    match (next, signer) {
        (NextState::None, _) => Ok(None),
        (NextState::Resume(payload), Some(signer)) => signer
            .sign(&payload)
            .map(|t| Some(Sealed::Signed(t)))
            .map_err(|error| {
                McpError::internal(format!("could not sign the resume state: {error}"))
            }),
        (NextState::Resume(_), None) => Err(McpError::internal(
            "a handler returned a resume state but the server has no signer \
             (set one with ServerBuilder::request_state_signer)",
        )),
        (NextState::Token(token), Some(signer)) => match signer.verify(&token) {
            Ok(_) => Ok(Some(Sealed::Opaque(token))),
            Err(reason) => Err(McpError::internal(format!(
                "a handler returned a requestState that does not verify under this \
                 request's binding ({reason}); return the resume value instead, or mint \
                 it with the context's signer"
            ))),
        },
        // Without a signer the state is the handler's own business.
        (NextState::Token(token), None) => Ok(Some(Sealed::Opaque(token))),
    }
}

/// The `requestState` that goes out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sealed {
    /// A token the gate signed: its characters (`v1`, a key id, base64url,
    /// dots) never need escaping in JSON.
    Signed(String),
    /// A string the handler set.
    Opaque(String),
}

fn refuse(request: &BindingRequest<'_>, reason: &StateError) -> McpError {
    tracing::warn!(
        method = %Wire(request.method),
        target = %Wire(request.target),
        %reason,
        "refused requestState"
    );
    McpError::InvalidRequestState
}
