//! Finishing what a handler of `tools/call`, `prompts/get` or
//! `resources/read` returned: a complete result as it is, or an [`Ask`]
//! checked and turned into the `InputRequiredResult` sent on the wire.

use super::Outcome;
use super::ask::{Ask, NextState};
use super::finish::{ResultMeta, finish};
use super::registry::Registry;
use super::state_gate::StateGate;
use crate::schema::{
    ClientCapabilities, ElicitRequestParams, ElicitationCapability, InputRequest,
    InputRequiredResult, InputRequiredType, JsonObject, McpError, SamplingCapability,
};

/// Finishes a handler's outcome. An ask must ask for something or carry
/// state (`-32603`); its state is signed (or a hand-minted one checked) by
/// the gate (`-32603`); and it may ask only for what the client declared
/// (`-32021` with `data.requiredCapabilities`).
pub(crate) fn finish_outcome<R: ResultMeta>(
    registry: &Registry,
    outcome: Outcome<R>,
    declared: DeclaredInputs,
    gate: &StateGate,
) -> Result<String, McpError> {
    let ask = match outcome {
        Outcome::Complete(result) => return finish(registry, result),
        Outcome::InputRequired(ask) => ask,
    };
    let Ask {
        requests,
        state,
        meta,
    } = ask;
    if requests.is_none() && state == NextState::None {
        return Err(McpError::internal(
            "a handler returned an input_required result with neither inputRequests nor requestState",
        ));
    }
    let request_state = gate.seal(state)?;
    if let Some(required) =
        missing_capabilities(requests.iter().flatten().map(|(_, r)| r), declared)
    {
        return Err(McpError::MissingClientCapability {
            required: Box::new(required),
        });
    }
    finish(
        registry,
        InputRequiredResult {
            result_type: InputRequiredType::InputRequired,
            input_requests: requests,
            request_state,
            meta,
        },
    )
}

/// Which kinds of input the client declared it can give: all the check of
/// an outgoing ask needs, taken before the request's context moves into
/// the handler (a copy, not a clone of the capabilities).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeclaredInputs {
    form: bool,
    url: bool,
    sampling: bool,
    sampling_tools: bool,
    roots: bool,
}

impl DeclaredInputs {
    pub(crate) fn of(capabilities: &ClientCapabilities) -> Self {
        Self {
            form: capabilities.supports_elicitation_form(),
            url: capabilities.supports_elicitation_url(),
            sampling: capabilities.supports_sampling(),
            sampling_tools: capabilities.supports_sampling_tools(),
            roots: capabilities.supports_roots(),
        }
    }
}

/// The capabilities the input requests need that the client did not declare.
#[allow(deprecated)]
fn missing_capabilities<'a>(
    requests: impl Iterator<Item = &'a InputRequest>,
    declared: DeclaredInputs,
) -> Option<ClientCapabilities> {
    let mut required = ClientCapabilities::default();
    let mut any = false;
    for request in requests {
        match request {
            InputRequest::Elicitation(ElicitRequestParams::Form(_)) if !declared.form => {
                let e = required
                    .elicitation
                    .get_or_insert_with(ElicitationCapability::default);
                e.form = Some(JsonObject::new());
                any = true;
            }
            InputRequest::Elicitation(ElicitRequestParams::Url(_)) if !declared.url => {
                let e = required
                    .elicitation
                    .get_or_insert_with(ElicitationCapability::default);
                e.url = Some(JsonObject::new());
                any = true;
            }
            InputRequest::Sampling(params) => {
                let needs_tools = params.tools.as_ref().is_some_and(|t| !t.is_empty());
                if !declared.sampling || (needs_tools && !declared.sampling_tools) {
                    let s = required
                        .sampling
                        .get_or_insert_with(SamplingCapability::default);
                    if needs_tools {
                        s.tools = Some(JsonObject::new());
                    }
                    any = true;
                }
            }
            InputRequest::ListRoots if !declared.roots => {
                required.roots = Some(JsonObject::new());
                any = true;
            }
            _ => {}
        }
    }
    any.then_some(required)
}
