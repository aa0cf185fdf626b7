//! Both ends of `requestState`, in one place.
//!
//! [`StateGate::open`] binds the server's signer to the request (caller,
//! method, target, arguments digest: computed here, once) and verifies the
//! echoed state, claiming it with the replay guard, **before** the handler
//! runs. [`StateGate::seal`] signs the resume value the handler handed back
//! **after** it returns, with the same bound signer. Nothing else in the
//! server verifies or signs a state.

use super::ask::NextState;
use super::context::RequestData;
use super::registry::Registry;
use crate::schema::McpError;
use crate::state::{BindingRequest, RequestStateSigner, StateError};

/// One request's passage through the gate.
pub(crate) struct StateGate {
    /// The server's signer bound to this request; `None` without a signer.
    signer: Option<RequestStateSigner>,
}

impl StateGate {
    /// A gate for a server without a signer: echoed states reach the handler
    /// unverified, and a resume value cannot be signed.
    pub(crate) fn unsigned() -> Self {
        Self { signer: None }
    }

    /// Binds the signer to `request` and verifies the echoed state in
    /// `data` under that binding. The verified payload and the bound signer
    /// (for handlers that mint by hand) go into `data`. Any failure is the
    /// fixed `-32602`; the reason goes to the log only.
    pub(crate) async fn open(
        registry: &Registry,
        request: BindingRequest<'_>,
        data: &mut RequestData,
    ) -> Result<Self, McpError> {
        let Some(signer) = &registry.signer else {
            return Ok(Self::unsigned());
        };
        let bound = signer.bind_to(signer.bind_for(&request, &data.receive));
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
                    Err(error) => {
                        return Err(McpError::internal(format!(
                            "cannot check requestState for single use, refusing: {error}"
                        )));
                    }
                }
            }
            data.state_payload = Some(verified.into_payload());
        }
        data.signer = Some(bound.clone());
        Ok(Self {
            signer: Some(bound),
        })
    }

    /// The `requestState` to send with an input-required result: the
    /// handler's resume value signed under this request's binding, or the
    /// token it minted itself, checked to verify under that binding (so a
    /// handler cannot hand out a state bound to another call). Either
    /// failure is `-32603`: the handler, not the client, is at fault.
    pub(crate) fn seal(&self, next: NextState) -> Result<Option<String>, McpError> {
        match (next, &self.signer) {
            (NextState::None, _) => Ok(None),
            (NextState::Resume(payload), Some(signer)) => {
                signer.sign(&payload).map(Some).map_err(|error| {
                    McpError::internal(format!("could not sign the resume state: {error}"))
                })
            }
            (NextState::Resume(_), None) => Err(McpError::internal(
                "a handler returned a resume state but the server has no signer \
                 (set one with ServerBuilder::request_state_signer)",
            )),
            (NextState::Token(token), Some(signer)) => match signer.verify(&token) {
                Ok(_) => Ok(Some(token)),
                Err(reason) => Err(McpError::internal(format!(
                    "a handler returned a requestState that does not verify under this \
                     request's binding ({reason}); return the resume value instead, or mint \
                     it with the context's signer"
                ))),
            },
            // Without a signer the state is the handler's own business.
            (NextState::Token(token), None) => Ok(Some(token)),
        }
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
