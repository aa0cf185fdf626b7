//! Both ends of `requestState`, in one place.
//!
//! [`open`] binds the server's signer to the request (caller, method,
//! target, arguments digest: computed here, once) and verifies the echoed
//! state, claiming it with the replay guard, **before** the handler runs.
//! [`seal`] signs the resume value the handler handed back **after** it
//! returns, with the same bound signer, which stays in the request's data
//! in between. Nothing else in the server verifies or signs a state.

use super::ask::NextState;
use super::context::RequestData;
use super::registry::Registry;
use crate::logged::Wire;
use crate::schema::McpError;
use crate::state::{BindingRequest, ReplayError, RequestStateSigner, StateError};

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
    let Some(signer) = &registry.signer else {
        return Ok(());
    };
    // The request's time, read once: what the echoed state is checked
    // against and what the next one's lifetime counts from.
    let bound = signer.bind_at(signer.bind_for(&request, &data.receive), signer.now());
    if let Some(state) = &data.request_state {
        let verified = bound
            .verify(state)
            .map_err(|reason| refuse(&request, &reason))?;
        if let Some(guard) = &registry.replay_guard {
            match guard
                .claim(verified.fingerprint(), verified.expires_at())
                .await
            {
                Ok(true) => {}
                Ok(false) => return Err(refuse(&request, &StateError::Replayed)),
                // Fail closed: a retry the guard cannot record is refused
                // like a replay, never run unrecorded.
                Err(ReplayError::Full { capacity }) => {
                    return Err(refuse(&request, &StateError::GuardFull { capacity }));
                }
                Err(error @ ReplayError::Unavailable(_)) => {
                    return Err(McpError::internal(format!(
                        "cannot check requestState for single use, refusing: {error}"
                    )));
                }
            }
        }
        data.state_payload = Some(verified.into_payload());
    }
    data.signer = Some(bound);
    Ok(())
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
