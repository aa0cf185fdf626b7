//! Multi round-trip requests: `InputRequiredResult`, input requests and responses.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestUrlParams, ElicitResult, JsonObject, ListRootsResult, RequestedSchema, UrlMode,
};

/// Something the server asks the client to obtain before it retries.
///
/// On the wire this is `{"method": ..., "params": ...}` with no `jsonrpc`
/// and no `id`: it is not a JSON-RPC request.
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`: ask the user, by form or URL.
    Elicitation(ElicitRequestParams),
    /// `sampling/createMessage`: ask the client's model.
    #[deprecated(note = "sampling is deprecated in MCP 2026-07-28 (SEP-2577); prefer elicitation")]
    Sampling(Box<CreateMessageRequestParams>),
    /// `roots/list`: ask for the client's filesystem roots.
    #[deprecated(note = "roots are deprecated in MCP 2026-07-28 (SEP-2577)")]
    ListRoots,
}

/// Method names of the input requests.
pub mod input_methods {
    /// Elicitation.
    pub const ELICITATION: &str = "elicitation/create";
    /// Sampling (deprecated).
    pub const SAMPLING: &str = "sampling/createMessage";
    /// Roots (deprecated).
    pub const LIST_ROOTS: &str = "roots/list";
}

#[allow(deprecated)]
impl InputRequest {
    /// The method name this request travels under.
    pub fn method(&self) -> &'static str {
        match self {
            Self::Elicitation(_) => input_methods::ELICITATION,
            Self::Sampling(_) => input_methods::SAMPLING,
            Self::ListRoots => input_methods::LIST_ROOTS,
        }
    }

    /// A URL-mode elicitation: the user is sent to `url` (for anything
    /// sensitive, which form mode must never ask for). The answer is an
    /// `ElicitResult` without content.
    pub fn elicit_url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self::Elicitation(ElicitRequestParams::Url(ElicitRequestUrlParams {
            mode: UrlMode::Url,
            message: message.into(),
            url: url.into(),
        }))
    }

    /// A form-mode elicitation with a hand-built schema (typed forms use
    /// `ElicitForm::form`).
    pub fn elicit_form(
        message: impl Into<String>,
        requested_schema: impl Into<RequestedSchema>,
    ) -> Self {
        Self::Elicitation(ElicitRequestParams::Form(ElicitRequestFormParams {
            mode: None,
            message: message.into(),
            requested_schema: requested_schema.into(),
        }))
    }

    /// A sampling input request (deprecated in 2026-07-28).
    #[deprecated(note = "sampling is deprecated in MCP 2026-07-28 (SEP-2577); prefer elicitation")]
    pub fn sampling(params: CreateMessageRequestParams) -> Self {
        Self::Sampling(Box::new(params))
    }

    /// A roots input request (deprecated in 2026-07-28).
    #[deprecated(note = "roots are deprecated in MCP 2026-07-28 (SEP-2577)")]
    pub fn list_roots() -> Self {
        Self::ListRoots
    }
}

#[allow(deprecated)]
impl Serialize for InputRequest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        // `roots/list` has no parameters: its `params` is optional in the
        // schema and the specification's example omits it.
        let len = if matches!(self, Self::ListRoots) {
            1
        } else {
            2
        };
        let mut out = s.serialize_struct("InputRequest", len)?;
        out.serialize_field("method", self.method())?;
        match self {
            Self::Elicitation(params) => out.serialize_field("params", params)?,
            Self::Sampling(params) => out.serialize_field("params", params)?,
            Self::ListRoots => {}
        }
        out.end()
    }
}

#[allow(deprecated)]
impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        #[derive(Deserialize)]
        struct Raw {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        let raw = Raw::deserialize(d)?;
        let params = || {
            raw.params
                .clone()
                .ok_or_else(|| D::Error::missing_field("params"))
        };
        match raw.method.as_str() {
            input_methods::ELICITATION => serde_json::from_value(params()?)
                .map(Self::Elicitation)
                .map_err(D::Error::custom),
            input_methods::SAMPLING => serde_json::from_value(params()?)
                .map(|p| Self::Sampling(Box::new(p)))
                .map_err(D::Error::custom),
            input_methods::LIST_ROOTS => Ok(Self::ListRoots),
            other => Err(D::Error::custom(format!(
                "unknown input request method {other:?}"
            ))),
        }
    }
}

/// Input requests by server-chosen key.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answers by the keys of the previous round's input requests.
///
/// Kept as raw JSON: an answer cannot be told apart structurally for
/// certain, so the server parses each key as the kind it asked for (see
/// [`InputResponse::parse_as`]).
pub type InputResponses = JsonObject;

/// A typed answer to one input request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InputResponse {
    /// The answer to an elicitation.
    Elicitation(ElicitResult),
    /// The answer to a sampling request (deprecated).
    Sampling(Box<CreateMessageResult>),
    /// The answer to a roots request (deprecated).
    ListRoots(ListRootsResult),
}

impl InputResponse {
    /// Parses a raw answer as the kind of answer `method` calls for.
    pub fn parse_as(method: &str, value: &Value) -> Result<Self, serde_json::Error> {
        use serde::de::Error;
        match method {
            input_methods::ELICITATION => ElicitResult::deserialize(value).map(Self::Elicitation),
            input_methods::SAMPLING => {
                CreateMessageResult::deserialize(value).map(|r| Self::Sampling(Box::new(r)))
            }
            input_methods::LIST_ROOTS => ListRootsResult::deserialize(value).map(Self::ListRoots),
            other => Err(serde_json::Error::custom(format!(
                "unknown input request method {other:?}"
            ))),
        }
    }
}

/// The literal `"input_required"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum InputRequiredType {
    /// `"input_required"`.
    #[default]
    #[serde(rename = "input_required")]
    InputRequired,
}

/// The result that asks the client for input and a retry.
///
/// At least one of `input_requests` and `request_state` is present; the
/// constructors make sure of it and deserialisation refuses anything else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "RawInputRequired")]
pub struct InputRequiredResult {
    /// Always `"input_required"`.
    pub result_type: InputRequiredType,
    /// What the client must obtain, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state the client echoes on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl InputRequiredResult {
    /// Asks for one input under `key`.
    pub fn ask(key: impl Into<String>, request: InputRequest) -> Self {
        let mut requests = InputRequests::new();
        requests.insert(key.into(), request);
        Self::with_requests(requests)
    }

    /// Asks for several inputs.
    pub fn with_requests(requests: InputRequests) -> Self {
        Self {
            result_type: InputRequiredType::InputRequired,
            input_requests: Some(requests),
            request_state: None,
            meta: None,
        }
    }

    /// Asks only to be retried, carrying `state` (e.g. load shedding).
    pub fn retry_with_state(state: impl Into<String>) -> Self {
        Self {
            result_type: InputRequiredType::InputRequired,
            input_requests: None,
            request_state: Some(state.into()),
            meta: None,
        }
    }

    /// Adds another input request under `key`.
    pub fn and_ask(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.input_requests
            .get_or_insert_with(InputRequests::new)
            .insert(key.into(), request);
        self
    }

    /// Sets the state the client must echo.
    pub fn with_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawInputRequired {
    result_type: InputRequiredType,
    #[serde(default)]
    input_requests: Option<InputRequests>,
    #[serde(default)]
    request_state: Option<String>,
    #[serde(rename = "_meta", default)]
    meta: Option<JsonObject>,
}

impl TryFrom<RawInputRequired> for InputRequiredResult {
    type Error = &'static str;

    fn try_from(raw: RawInputRequired) -> Result<Self, Self::Error> {
        if raw.input_requests.is_none() && raw.request_state.is_none() {
            return Err("an input_required result needs inputRequests or requestState");
        }
        Ok(Self {
            result_type: raw.result_type,
            input_requests: raw.input_requests,
            request_state: raw.request_state,
            meta: raw.meta,
        })
    }
}
