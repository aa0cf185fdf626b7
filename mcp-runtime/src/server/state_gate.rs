//! Where the server enforces the request-state contract: every echoed
//! state is verified (and claimed, with single use) before the handler
//! runs, and every state a handler hands out must verify under the same
//! binding. One place, for the three methods that may ask for input.

use std::sync::{Arc, Mutex, PoisonError};

use super::Context;
use super::context::RequestData;
use super::registry::Registry;
use crate::schema::{InputRequiredResult, McpError};
use crate::state::{BindingRequest, RequestStateSigner, StateError};

/// One request's passage through the gate: the signer bound to the
/// request, and the request's data (shared with its context), where the
/// states the context mints are recorded.
pub(crate) struct Gate {
    signer: RequestStateSigner,
    data: Arc<RequestData>,
}

/// The states a request's context minted (with its bound signer), so the
/// outgoing check need not verify them again.
#[derive(Debug, Default)]
pub(crate) struct Minted(Mutex<Vec<String>>);

impl Clone for Minted {
    fn clone(&self) -> Self {
        Self(Mutex::new(
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
        ))
    }
}

impl Minted {
    /// Remembers a state minted with the request's bound signer.
    pub(crate) fn record(&self, state: &str) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(state.to_owned());
    }

    fn contains(&self, state: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|minted| minted == state)
    }
}

/// Verifies the echoed state of `ctx` under the binding of `request`, puts
/// the payload and the bound signer into `ctx`, and returns the gate the
/// outgoing result passes through.
pub(crate) async fn open(
    registry: &Registry,
    ctx: &mut Context,
    request: BindingRequest<'_>,
) -> Result<Option<Gate>, McpError> {
    let Some(signer) = &registry.signer else {
        return Ok(None);
    };
    let bound = signer.bind_to(signer.bind_for(&request, &ctx.data.receive));
    if let Some(state) = &ctx.data.request_state {
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
                Err(error) => {
                    return Err(McpError::internal(format!(
                        "cannot check requestState for single use, refusing: {error}"
                    )));
                }
            }
        }
        ctx.data_mut().state_payload = Some(verified.into_payload());
    }
    ctx.data_mut().signer = Some(bound.clone());
    Ok(Some(Gate {
        signer: bound,
        data: Arc::clone(&ctx.data),
    }))
}

/// Refuses an outgoing state that does not verify under the request's
/// binding, so a handler cannot mint under a binding of its own. A state
/// the context minted with the bound signer is known good and is not
/// verified again.
pub(crate) fn check_outgoing(
    gate: Option<&Gate>,
    ask: &InputRequiredResult,
) -> Result<(), McpError> {
    match (gate, &ask.request_state) {
        (Some(gate), Some(state)) if gate.data.minted.contains(state) => Ok(()),
        (Some(Gate { signer, .. }), Some(state)) => signer.verify(state).map(|_| ()).map_err(|reason| {
            McpError::internal(format!(
                "a handler returned a requestState that does not verify under this request's binding ({reason}); mint it with the context's signer"
            ))
        }),
        _ => Ok(()),
    }
}

fn refuse(request: &BindingRequest<'_>, reason: &StateError) -> McpError {
    tracing::warn!(
        method = request.method,
        target = request.target,
        %reason,
        "refused requestState"
    );
    McpError::InvalidRequestState
}
