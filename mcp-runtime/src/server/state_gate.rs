//! Where the server enforces the request-state contract: every echoed
//! state is verified (and claimed, with single use) before the handler
//! runs, and every state a handler hands out must verify under the same
//! binding. One place, for the three methods that may ask for input.

use super::Context;
use super::registry::Registry;
use crate::schema::{InputRequiredResult, McpError};
use crate::state::{BindingRequest, RequestStateSigner, StateError};

/// Verifies the echoed state of `ctx` under the binding of `request`, puts
/// the payload and the bound signer into `ctx`, and returns the bound signer.
pub(crate) async fn open(
    registry: &Registry,
    ctx: &mut Context,
    request: BindingRequest<'_>,
) -> Result<Option<RequestStateSigner>, McpError> {
    let Some(signer) = &registry.signer else {
        return Ok(None);
    };
    let bound = signer.bind_to(signer.bind_for(&request, &ctx.receive));
    if let Some(state) = &ctx.request_state {
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
        ctx.state_payload = Some(verified.into_payload());
    }
    ctx.signer = Some(bound.clone());
    Ok(Some(bound))
}

/// Refuses an outgoing state that does not verify under the request's
/// binding, so a handler cannot mint under a binding of its own.
pub(crate) fn check_outgoing(
    bound: Option<&RequestStateSigner>,
    ask: &InputRequiredResult,
) -> Result<(), McpError> {
    match (bound, &ask.request_state) {
        (Some(signer), Some(state)) => signer.verify(state).map(|_| ()).map_err(|reason| {
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
