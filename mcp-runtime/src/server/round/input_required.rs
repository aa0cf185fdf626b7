//! Finishing what a handler of `tools/call`, `prompts/get` or
//! `resources/read` returned: a complete result as it is, or an [`Ask`]
//! checked and turned into the `InputRequiredResult` sent on the wire.

use super::finish::{Finisher, ResultMeta, Shape};
use crate::schema::{InputRequests, McpError};
use crate::server::gate::{self, NextState, Sealed};
use crate::server::handler::{Ask, Outcome, RequestData};

/// Finishes a handler's outcome for the request whose data is `request`.
/// An ask must ask for something or carry state (`-32603`); its state is
/// signed (or a hand-minted one checked) by the state gate (`-32603`); a
/// form it asks must have bounds an answer can meet (`-32603`); and it may
/// ask only for what the client declared (`-32021` with
/// `data.requiredCapabilities`).
pub(crate) fn finish_outcome<R: ResultMeta>(
    finisher: &Finisher,
    outcome: Outcome<R>,
    request: &RequestData,
) -> Result<String, McpError> {
    let ask = match outcome {
        Outcome::Complete(result) => {
            return finisher.result(Shape::of(request.is_legacy()), result);
        }
        Outcome::InputRequired(ask) => ask,
    };
    let Ask {
        requests,
        state,
        meta,
        ..
    } = ask;
    if requests.is_none() && state == NextState::None {
        return Err(McpError::internal(
            "a handler returned an input_required result with neither inputRequests nor requestState",
        ));
    }
    let request_state = gate::seal(request.verified(), state)?;
    crate::form::check_forms(requests.iter().flatten())?;
    let declared = &request.meta().client_capabilities;
    if let Some(required) = declared.missing_for(requests.iter().flat_map(|r| r.values())) {
        return Err(McpError::MissingClientCapability {
            required: Box::new(required),
        });
    }
    let meta = finisher.meta_json(meta)?;
    render(requests.as_ref(), request_state.as_ref(), meta.as_deref())
}

/// The `InputRequiredResult` as compact JSON, written as serde would write
/// it (a test holds them equal) but with its own keys, a state token the
/// gate signed and its `_meta` (`meta`, already JSON) copied as they are:
/// they need no escaping, and this is the one result every round sends.
fn render(
    requests: Option<&InputRequests>,
    state: Option<&Sealed>,
    meta: Option<&str>,
) -> Result<String, McpError> {
    fn failed(error: impl std::fmt::Display) -> McpError {
        McpError::internal(format!("could not serialise the result: {error}"))
    }
    let mut json = Vec::with_capacity(1024);
    json.extend_from_slice(br#"{"resultType":"input_required""#);
    if let Some(requests) = requests {
        json.extend_from_slice(br#","inputRequests":"#);
        serde_json::to_writer(&mut json, requests).map_err(failed)?;
    }
    match state {
        Some(Sealed::Signed(token)) => {
            json.extend_from_slice(br#","requestState":""#);
            json.extend_from_slice(token.as_bytes());
            json.push(b'"');
        }
        Some(Sealed::Opaque(state)) => {
            json.extend_from_slice(br#","requestState":"#);
            serde_json::to_writer(&mut json, state).map_err(failed)?;
        }
        None => {}
    }
    if let Some(meta) = meta {
        json.extend_from_slice(br#","_meta":"#);
        json.extend_from_slice(meta.as_bytes());
    }
    json.push(b'}');
    String::from_utf8(json).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{InputRequest, InputRequiredResult, InputRequiredType};
    use serde_json::json;

    /// `render` writes what serde writes for the same `InputRequiredResult`.
    #[test]
    fn render_writes_what_serde_writes() {
        let form = InputRequest::elicit_url("Visit \"this\"\n", "https://example.com/a?b=c");
        let requests = InputRequests::from([("k\u{e9}y".to_owned(), form)]);
        let meta = json!({"io.modelcontextprotocol/serverInfo": {"name": "s\\"}, "x": [1]});
        let serde_json::Value::Object(meta) = meta else {
            unreachable!()
        };
        let states = [
            None,
            Some(Sealed::Signed("v1.key_-1.AAAA-_.BBBB".to_owned())),
            Some(Sealed::Opaque("any \"thing\" \u{1}".to_owned())),
        ];
        for requests in [None, Some(&requests)] {
            for state in &states {
                for meta in [None, Some(&meta)] {
                    let written = meta.map(|meta| serde_json::to_string(meta).unwrap());
                    let rendered = render(requests, state.as_ref(), written.as_deref()).unwrap();
                    let by_serde = serde_json::to_string(&InputRequiredResult {
                        result_type: InputRequiredType::InputRequired,
                        input_requests: requests.cloned(),
                        request_state: state.as_ref().map(|s| match s {
                            Sealed::Signed(s) | Sealed::Opaque(s) => s.clone(),
                        }),
                        meta: meta.cloned(),
                    })
                    .unwrap();
                    assert_eq!(rendered, by_serde);
                }
            }
        }
    }
}
