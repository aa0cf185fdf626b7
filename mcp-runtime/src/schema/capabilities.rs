//! Client and server capability objects.
//!
//! Capabilities are open sets: unknown keys are kept in `extra` and written
//! back unchanged, so a client that sends `roots: {listChanged: true}` (a
//! pre-2026 field) is accepted.

use serde::{Deserialize, Serialize};

use super::{ElicitRequestParams, InputRequest, JsonObject};

/// What a client can do for this request, from
/// `_meta["io.modelcontextprotocol/clientCapabilities"]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientCapabilities {
    /// The client can answer elicitation input requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// The client can answer sampling input requests (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// The client can answer `roots/list` input requests (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<JsonObject>,
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Extensions the client supports, keyed by extension id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
    /// Keys this crate does not model, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ClientCapabilities {
    /// True when the client accepts form-mode elicitation: `elicitation`
    /// present and either `form` declared or neither mode named
    /// (`elicitation: {}` means form only).
    pub fn supports_elicitation_form(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none())
    }

    /// True when the client accepts URL-mode elicitation (`elicitation.url`).
    pub fn supports_elicitation_url(&self) -> bool {
        self.elicitation.as_ref().is_some_and(|e| e.url.is_some())
    }

    /// True when the client accepts sampling input requests.
    pub fn supports_sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// True when the client accepts tool-enabled sampling (`sampling.tools`).
    pub fn supports_sampling_tools(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// True when the client accepts `roots/list` input requests.
    pub fn supports_roots(&self) -> bool {
        self.roots.is_some()
    }

    /// The capabilities that `requests` need and this object does not
    /// declare, as the `requiredCapabilities` of a `-32021` error names
    /// them; `None` when every request can be asked.
    #[allow(deprecated)]
    pub fn missing_for<'a>(
        &self,
        requests: impl IntoIterator<Item = &'a InputRequest>,
    ) -> Option<ClientCapabilities> {
        let mut required = ClientCapabilities::default();
        let mut any = false;
        for request in requests {
            match request {
                InputRequest::Elicitation(ElicitRequestParams::Form(_))
                    if !self.supports_elicitation_form() =>
                {
                    let e = required
                        .elicitation
                        .get_or_insert_with(ElicitationCapability::default);
                    e.form = Some(JsonObject::new());
                    any = true;
                }
                InputRequest::Elicitation(ElicitRequestParams::Url(_))
                    if !self.supports_elicitation_url() =>
                {
                    let e = required
                        .elicitation
                        .get_or_insert_with(ElicitationCapability::default);
                    e.url = Some(JsonObject::new());
                    any = true;
                }
                InputRequest::Sampling(params) => {
                    let needs_tools = params.tools.as_ref().is_some_and(|t| !t.is_empty());
                    if !self.supports_sampling() || (needs_tools && !self.supports_sampling_tools())
                    {
                        let s = required
                            .sampling
                            .get_or_insert_with(SamplingCapability::default);
                        if needs_tools {
                            s.tools = Some(JsonObject::new());
                        }
                        any = true;
                    }
                }
                InputRequest::ListRoots if !self.supports_roots() => {
                    required.roots = Some(JsonObject::new());
                    any = true;
                }
                _ => {}
            }
        }
        any.then_some(required)
    }

    /// The names of the top-level capabilities this object declares.
    pub fn names(&self) -> Vec<&str> {
        let mut names = Vec::new();
        if self.elicitation.is_some() {
            names.push("elicitation");
        }
        if self.sampling.is_some() {
            names.push("sampling");
        }
        if self.roots.is_some() {
            names.push("roots");
        }
        if self.experimental.is_some() {
            names.push("experimental");
        }
        if self.extensions.is_some() {
            names.push("extensions");
        }
        names.extend(self.extra.keys().map(String::as_str));
        names
    }
}

/// The client's elicitation modes. An empty object means form mode only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Form mode (a flat form rendered by the client).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode (the user visits a server-named URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
    /// Keys this crate does not model.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The client's sampling support (deprecated in 2026-07-28).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// Support for `includeContext` other than `"none"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Support for tool use inside sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// Keys this crate does not model.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// What a server offers, as announced by `server/discover`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerCapabilities {
    /// The server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// The server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// The server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server answers `completion/complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// The server can send log notifications (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Extensions the server supports, keyed by extension id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
    /// Keys this crate does not model.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// A `tools` or `prompts` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedCapability {
    /// The server sends list-changed notifications on `subscriptions/listen`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// The `resources` capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// The server honours `resourceSubscriptions` on `subscriptions/listen`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server sends `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}
