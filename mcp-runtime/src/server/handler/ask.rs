//! What a handler that cannot finish without the client returns: the
//! questions, and the state its retry resumes from, not yet signed.

use serde::Serialize;

use crate::schema::{InputRequest, InputRequests, InputRequiredResult, JsonObject, McpError};
use crate::server::gate::NextState;

/// A handler's request for input: what to ask the client, and the state
/// the client's retry resumes from.
///
/// The resume state is handed over **unsigned**: after the handler returns,
/// the state gate signs it with the server's signer bound to this request
/// (caller, method, target, arguments) and sends the token as
/// `requestState`. On the retry it is verified under the same binding
/// before the handler runs, and reaches it as [`Resume<S>`](super::Resume)
/// or [`Ctx::state`](super::Ctx::state). For a 2025-era client, whose
/// rounds the bridge runs in process, the state never leaves the server
/// and is not signed.
///
/// ```
/// use mcp_runtime::schema::InputRequest;
/// use mcp_runtime::server::handler::Ask;
///
/// #[derive(serde::Serialize)]
/// enum Step { AwaitingLogin }
///
/// let ask = Ask::new("login", InputRequest::elicit_url("Sign in first.", "https://example.com/login"))
///     .resume(&Step::AwaitingLogin)?;
/// assert!(ask.input_requests().is_some_and(|r| r.contains_key("login")));
/// # Ok::<(), mcp_runtime::schema::McpError>(())
/// ```
///
/// A hand-written handler may also mint the token itself
/// ([`Ctx::mint_state`](super::Ctx::mint_state)) and pass it with
/// [`Ask::with_state`]; the state gate then checks that it verifies under this
/// request's binding (`-32603` otherwise). On a server without a signer,
/// `with_state` passes any opaque string through unchecked.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "an ask does nothing unless the handler returns it"]
pub struct Ask {
    pub(crate) requests: Option<InputRequests>,
    pub(crate) state: NextState,
    pub(crate) meta: Option<JsonObject>,
    /// Asked before the call may become a task (tasks extension).
    pub(crate) before_task: bool,
}

impl Ask {
    /// Asks for one input under `key`.
    pub fn new(key: impl Into<String>, request: InputRequest) -> Self {
        Self::requests(InputRequests::from([(key.into(), request)]))
    }

    /// Asks for several inputs, by key.
    pub fn requests(requests: InputRequests) -> Self {
        Self {
            requests: Some(requests),
            state: NextState::None,
            meta: None,
            before_task: false,
        }
    }

    /// Asks for nothing, only for a retry (load shedding, say). It must
    /// carry a state: give one with [`Self::resume`] or [`Self::with_state`].
    pub fn retry() -> Self {
        Self {
            requests: None,
            state: NextState::None,
            meta: None,
            before_task: false,
        }
    }

    /// Asks for one more input under `key`.
    pub fn and_ask(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.requests
            .get_or_insert_with(InputRequests::new)
            .insert(key.into(), request);
        self
    }

    /// Sets the value the retry resumes from. It is serialised as JSON now
    /// and signed by the runtime once the handler returns.
    pub fn resume<S: Serialize + ?Sized>(self, state: &S) -> Result<Self, McpError> {
        let payload = serde_json::to_vec(state).map_err(|error| {
            McpError::internal(format!("could not serialise the resume state: {error}"))
        })?;
        Ok(self.resume_payload(payload))
    }

    /// Sets the resume state as raw bytes (signed by the runtime, handed
    /// back by [`Ctx::state_payload`](super::Ctx::state_payload)).
    pub fn resume_payload(mut self, payload: impl Into<Vec<u8>>) -> Self {
        self.state = NextState::Resume(payload.into());
        self
    }

    /// Sets `requestState` to a token the handler minted itself with
    /// [`Ctx::mint_state`](super::Ctx::mint_state). The runtime
    /// checks it verifies under this request's binding.
    pub fn with_state(mut self, token: impl Into<String>) -> Self {
        self.state = NextState::Token(token.into());
        self
    }

    /// Sets the result's `_meta`.
    pub fn with_meta(mut self, meta: JsonObject) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Marks the questions as ones to answer before the call becomes a
    /// task (tasks extension): a tool that may run as a task asks them in
    /// the `tools/call` itself, as an `InputRequiredResult`, and the task
    /// starts only once they are answered. Without it, a tool running as a
    /// task asks inside the task (`tasks/get` shows the questions,
    /// `tasks/update` answers them). Outside tasks it changes nothing.
    pub fn before_task(mut self) -> Self {
        self.before_task = true;
        self
    }

    /// What is asked, by key.
    pub fn input_requests(&self) -> Option<&InputRequests> {
        self.requests.as_ref()
    }

    /// Whether the ask carries a state (a resume value or a token).
    pub fn has_state(&self) -> bool {
        !matches!(self.state, NextState::None)
    }
}

/// A result built by hand: its `requestState`, if any, is taken as a token
/// the handler minted ([`Ask::with_state`]).
impl From<InputRequiredResult> for Ask {
    fn from(result: InputRequiredResult) -> Self {
        Self {
            requests: result.input_requests,
            state: result
                .request_state
                .map_or(NextState::None, NextState::Token),
            meta: result.meta,
            before_task: false,
        }
    }
}
