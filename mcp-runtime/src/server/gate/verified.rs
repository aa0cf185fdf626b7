//! The request state as it crosses the gate: what a handler returns to be
//! resumed from ([`NextState`]), what goes out ([`Sealed`]), and what the
//! gate hands the handler ([`Verified`]), which nothing outside the gate
//! can make.

use crate::state::RequestStateSigner;

/// The request state as the gate left it for one round: the verified
/// payload of the state the round resumes from (none on a first call) and
/// the server's signer bound to this request, for the next state.
///
/// Its fields are private to the gate: a payload reaches a handler only
/// through [`StateGate`](super::StateGate) (verified, kept by the server,
/// or carried in process from the round before), never set by hand.
#[derive(Debug, Clone, Default)]
pub(crate) struct Verified {
    pub(super) payload: Option<Vec<u8>>,
    pub(super) signer: Option<RequestStateSigner>,
}

impl Verified {
    /// What passes for a request that echoed no state (or on a server
    /// without a signer): no payload, the bound signer if there is one.
    pub(super) fn stateless(signer: Option<RequestStateSigner>) -> Self {
        Self {
            payload: None,
            signer,
        }
    }

    /// The verified payload: what the round resumes from.
    pub(crate) fn payload(&self) -> Option<&[u8]> {
        self.payload.as_deref()
    }

    /// The server's signer bound to this request; `None` on a server
    /// without one.
    pub(crate) fn signer(&self) -> Option<&RequestStateSigner> {
        self.signer.as_ref()
    }
}

/// The state a handler wants its next round to resume from, as it
/// returned it: not yet signed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NextState {
    /// No state.
    None,
    /// A payload for the gate to sign (or, for a 2025-era client, to
    /// carry to the next round in process).
    Resume(Vec<u8>),
    /// A token the handler minted itself (or, on a server without a
    /// signer, any string it chose).
    Token(String),
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
