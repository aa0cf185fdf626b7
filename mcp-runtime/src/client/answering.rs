//! Per-call answers: a handler given to one call ([`super::Call::answering`])
//! that is asked first about each of that call's input requests, and may
//! leave any of them to the client's handlers.

use std::collections::BTreeSet;
use std::future::Future;

use serde::Serialize;
use serde_json::Value;

use super::{ClientError, Handlers, form_answer};
use crate::BoxFuture;
use crate::form::ElicitForm;
use crate::schema::{
    ClientCapabilities, ElicitAction, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestUrlParams, ElicitResult, ElicitationCapability, InputRequest, InputRequiredResult,
    InputResponses, JsonObject,
};

/// One input request of an `input_required` result, as a per-call handler
/// sees it: the server's key and what it asks for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Asked {
    /// The server's key for this request; the answer goes back under it.
    pub key: String,
    /// What the server asks for.
    pub request: InputRequest,
}

impl Asked {
    /// The request `request` under `key` (to test a per-call handler).
    pub fn new(key: impl Into<String>, request: InputRequest) -> Self {
        Self {
            key: key.into(),
            request,
        }
    }

    /// The form, when this is a form-mode elicitation.
    pub fn form(&self) -> Option<&ElicitRequestFormParams> {
        match &self.request {
            InputRequest::Elicitation(ElicitRequestParams::Form(form)) => Some(form),
            _ => None,
        }
    }

    /// The URL request, when this is a URL-mode elicitation.
    pub fn url(&self) -> Option<&ElicitRequestUrlParams> {
        match &self.request {
            InputRequest::Elicitation(ElicitRequestParams::Url(url)) => Some(url),
            _ => None,
        }
    }

    /// True when this is a form whose fields are exactly the fields of the
    /// form type `T` (by name, in any order): the form to answer with a
    /// `T` through [`InputResponse::form`].
    pub fn is_form_of<T: ElicitForm>(&self) -> bool {
        let Some(form) = self.form() else {
            return false;
        };
        let asked: BTreeSet<&str> = form
            .requested_schema
            .properties
            .keys()
            .map(String::as_str)
            .collect();
        let typed: BTreeSet<&str> = T::requested_schema()
            .properties
            .keys()
            .map(String::as_str)
            .collect();
        asked == typed
    }
}

/// What a per-call handler does with one input request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputResponse {
    /// Answers an elicitation (form or URL mode) with this result.
    Elicit(ElicitResult),
    /// Answers with this JSON, sent as given (for example a
    /// `CreateMessageResult` to a sampling request).
    Json(Value),
    /// Leaves the request to the handlers registered on the client; with
    /// none for its kind, the call fails with [`ClientError::MissingHandler`].
    Defer,
    /// Ends the call with this error; nothing more is sent.
    Fail(ClientError),
}

impl InputResponse {
    /// Accepts a form with `value`, field by field (see [`form_answer`]);
    /// a value that cannot be encoded ends the call with the error.
    pub fn form<T: ElicitForm + Serialize>(value: &T) -> Self {
        match form_answer(value) {
            Ok(result) => Self::Elicit(result),
            Err(error) => Self::Fail(error),
        }
    }

    /// Accepts without content: the user's consent to a URL-mode request.
    pub fn accept() -> Self {
        Self::Elicit(ElicitResult {
            action: ElicitAction::Accept,
            content: None,
            meta: None,
        })
    }

    /// Declines the elicitation.
    pub fn decline() -> Self {
        Self::Elicit(ElicitResult::decline())
    }

    /// Cancels (dismisses) the elicitation.
    pub fn cancel() -> Self {
        Self::Elicit(ElicitResult::cancel())
    }
}

impl From<ElicitResult> for InputResponse {
    fn from(result: ElicitResult) -> Self {
        Self::Elicit(result)
    }
}

/// A per-call handler, boxed; it may borrow what lives for `'a`.
pub(super) type PerCall<'a> = Box<dyn Fn(Asked) -> BoxFuture<'a, InputResponse> + Send + Sync + 'a>;

/// Boxes `f` as a per-call handler.
pub(super) fn per_call<'a, F, Fut>(f: F) -> PerCall<'a>
where
    F: Fn(Asked) -> Fut + Send + Sync + 'a,
    Fut: Future<Output = InputResponse> + Send + 'a,
{
    Box::new(move |asked| Box::pin(f(asked)))
}

/// The capabilities of a call with a per-call handler: the client's, plus
/// both elicitation modes (the handler is asked about every request).
pub(super) fn with_elicitation(client: &ClientCapabilities) -> ClientCapabilities {
    let mut capabilities = client.clone();
    let elicitation = capabilities
        .elicitation
        .get_or_insert_with(ElicitationCapability::default);
    elicitation.form.get_or_insert_with(JsonObject::new);
    elicitation.url.get_or_insert_with(JsonObject::new);
    capabilities
}

/// Answers every input request of `asked`, in key order: the per-call
/// handler first, the client's `handlers` for what it defers.
pub(super) async fn answer_round(
    per_call: &PerCall<'_>,
    handlers: &Handlers,
    asked: &InputRequiredResult,
) -> Result<InputResponses, ClientError> {
    let requests = asked.input_requests.clone().unwrap_or_default();
    let mut responses = InputResponses::new();
    for (key, request) in requests {
        let response = per_call(Asked::new(key.clone(), request.clone())).await;
        let answer = match response {
            InputResponse::Elicit(result) => serde_json::to_value(result).map_err(|e| {
                ClientError::Encode(format!("the answer to {key:?} cannot be encoded: {e}"))
            })?,
            InputResponse::Json(value) => value,
            InputResponse::Defer => handlers.answer(&key, request).await?,
            InputResponse::Fail(error) => return Err(error),
        };
        responses.insert(key, answer);
    }
    Ok(responses)
}
