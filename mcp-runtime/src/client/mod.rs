//! A client for MCP 2026-07-28 servers, over streamable HTTP or stdio.
//!
//! Every request carries the per-request `_meta` (protocol version, the
//! client capabilities derived from the registered handlers, client info);
//! over HTTP also the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
//! headers. `call_tool`, `get_prompt` and `read_resource` fulfil
//! `input_required` results through the registered handlers and retry,
//! within a bounded number of rounds and a total time; the `*_once`
//! variants return the `InputRequiredResult` instead.
//!
//! [`Client::call_tool_with`] and [`Client::get_prompt_with`] take any
//! `Serialize` value as the arguments; they, [`Client::tool_call`],
//! [`Client::prompt_get`] and [`Client::resource_read`] return a [`Call`],
//! which [`Call::answering`] gives a handler for that call only: it is
//! asked first about each input request, and what it defers
//! ([`InputResponse::Defer`]) goes to the client's handlers.
//!
//! ```no_run
//! use mcp_runtime::client::Client;
//! use mcp_runtime::schema::ElicitResult;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::http("http://127.0.0.1:8080/mcp")
//!     .on_elicit_form(|params| async move {
//!         println!("{}", params.message);
//!         ElicitResult::decline()
//!     })
//!     .connect()
//!     .await?;
//! let result = client.call_tool("greet", None).await?;
//! # let _ = result;
//! # Ok(()) }
//! ```
//!
//! Typed arguments, and a per-call handler that answers a form with a
//! typed value:
//!
//! ```no_run
//! use mcp_runtime::client::{Client, InputResponse};
//! use mcp_runtime::prelude::*;
//! use serde::Serialize;
//!
//! #[derive(Serialize)]
//! struct DeployArgs {
//!     target: String,
//!     replicas: u32,
//! }
//!
//! #[derive(ElicitForm, Serialize)]
//! struct Confirm {
//!     /// Go ahead?
//!     ok: bool,
//! }
//!
//! # async fn run(client: Client) -> Result<(), mcp_runtime::client::ClientError> {
//! let args = DeployArgs { target: "prod".into(), replicas: 3 };
//! let result = client
//!     .call_tool_with("deploy", &args)
//!     .answering(|asked| async move {
//!         if asked.is_form_of::<Confirm>() {
//!             InputResponse::form(&Confirm { ok: true })
//!         } else {
//!             InputResponse::Defer // to the client's handlers
//!         }
//!     })
//!     .await?;
//! # let _ = result;
//! # Ok(()) }
//! ```

mod answering;
mod call;
mod error;
mod fulfil;
mod raw;
mod transport;

pub use answering::{Asked, InputResponse};
pub use call::{Call, arguments};
pub use error::ClientError;
pub use fulfil::{Handlers, Retry, Step, form_answer};
pub use raw::ListKind;

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::schema::request_methods::{
    COMPLETION_COMPLETE, PROMPTS_GET, PROMPTS_LIST, RESOURCES_LIST, RESOURCES_READ,
    RESOURCES_TEMPLATES_LIST, SERVER_DISCOVER, TOOLS_CALL, TOOLS_LIST,
};
use crate::schema::{
    CallToolResult, ClientCapabilities, CompleteResult, Completion, CompletionArgument,
    CompletionContext, CompletionReference, DiscoverResult, ElicitationCapability, GetPromptResult,
    Implementation, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, Prompt, ReadResourceResult, RequestId, RequestMeta,
    Resource, ResourceTemplate, ResultType, Tool,
};
use transport::Transport;

/// The bound on fulfilled `input_required` rounds per request by default.
const MAX_ROUNDS: usize = 10;
/// The bound on pages one `list_*` call follows by default.
const LIST_PAGES: usize = 1000;
/// The bound on the total time of one auto-fulfilled request by default.
const MAX_DURATION: Duration = Duration::from_secs(300);

/// The bounds of a [`Client`]: how far it goes fulfilling input requests,
/// and how many pages a `list_*` call follows. Each field states its
/// default, which [`ClientLimits::default`] holds.
///
/// Set them at once with [`ClientBuilder::limits`], starting from the
/// defaults, or with [`ClientBuilder::max_rounds`] and
/// [`ClientBuilder::max_duration`], which write into the same settings.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::client::{Client, ClientLimits};
///
/// let mut limits = ClientLimits::default();
/// limits.max_rounds = 3;
/// limits.max_duration = Duration::from_secs(30);
/// let builder = Client::http("http://127.0.0.1:8080/mcp").limits(limits);
/// assert_eq!(builder.current_limits().max_rounds, 3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientLimits {
    /// The most `input_required` rounds fulfilled for one request; the
    /// server asking again after that many ends the call with
    /// [`ClientError::RoundsExceeded`]. Default: 10.
    pub max_rounds: usize,
    /// The bound on the total time of one auto-fulfilled request, its
    /// rounds and the answering of them included; past it the call ends
    /// with [`ClientError::Timeout`]. Default: 5 min.
    pub max_duration: Duration,
    /// The most pages one `list_*` call follows, against a server whose
    /// cursors never end; past it the call ends with
    /// [`ClientError::MalformedResponse`]. At least 1 (0 is taken as 1).
    /// Default: 1,000.
    pub max_list_pages: usize,
}

impl Default for ClientLimits {
    fn default() -> Self {
        Self {
            max_rounds: MAX_ROUNDS,
            max_duration: MAX_DURATION,
            max_list_pages: LIST_PAGES,
        }
    }
}

/// The default bound on fulfilled `input_required` rounds per request (10).
#[doc(hidden)]
#[deprecated(note = "use `ClientLimits::default().max_rounds`")]
pub const DEFAULT_MAX_ROUNDS: usize = MAX_ROUNDS;

/// The bound on pages one `list_*` call follows (1,000).
#[doc(hidden)]
#[deprecated(note = "use `ClientLimits::default().max_list_pages`")]
pub const MAX_LIST_PAGES: usize = LIST_PAGES;

/// The default bound on the total time of one auto-fulfilled request
/// (5 min).
#[doc(hidden)]
#[deprecated(note = "use `ClientLimits::default().max_duration`")]
pub const DEFAULT_MAX_DURATION: Duration = MAX_DURATION;

enum Target {
    Http(String),
    Stdio { command: String, args: Vec<String> },
}

/// Configures a [`Client`]: its transport, identity, handlers and bounds.
pub struct ClientBuilder {
    target: Target,
    client_info: Implementation,
    handlers: Handlers,
    limits: ClientLimits,
}

impl ClientBuilder {
    fn new(target: Target) -> Self {
        Self {
            target,
            client_info: Implementation::new("mcp-runtime-client", env!("CARGO_PKG_VERSION")),
            handlers: Handlers::default(),
            limits: ClientLimits::default(),
        }
    }

    /// Sets the `clientInfo` sent with every request.
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.client_info = info;
        self
    }

    /// Sets every limit at once (see [`ClientLimits`] for each and its
    /// default).
    pub fn limits(mut self, limits: ClientLimits) -> Self {
        self.limits = limits;
        self.limits.max_list_pages = limits.max_list_pages.max(1);
        self
    }

    /// The limits the client will apply: the defaults, changed by
    /// [`Self::limits`] and the setters of one limit.
    pub fn current_limits(&self) -> &ClientLimits {
        &self.limits
    }

    /// Bounds the `input_required` rounds fulfilled per request
    /// ([`ClientLimits::max_rounds`], default 10).
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.limits.max_rounds = rounds;
        self
    }

    /// Bounds the total time of one auto-fulfilled request
    /// ([`ClientLimits::max_duration`], default 5 min).
    pub fn max_duration(mut self, limit: Duration) -> Self {
        self.limits.max_duration = limit;
        self
    }

    /// Mutable access to the handlers; the `on_*` methods are shorthands.
    pub fn handlers_mut(&mut self) -> &mut Handlers {
        &mut self.handlers
    }

    /// Connects: builds the HTTP client, or spawns the stdio server
    /// process (which must happen inside a Tokio runtime).
    pub async fn connect(self) -> Result<Client, ClientError> {
        let transport = match &self.target {
            Target::Http(url) => Transport::http(url.clone()),
            Target::Stdio { command, args } => Transport::stdio(command, args)?,
        };
        Ok(Client {
            transport,
            capabilities: self.handlers.capabilities(),
            client_info: self.client_info,
            handlers: self.handlers,
            limits: self.limits,
            next_id: AtomicI64::new(1),
            param_headers: Default::default(),
        })
    }
}

/// A connection to one MCP server.
pub struct Client {
    transport: Transport,
    capabilities: ClientCapabilities,
    client_info: Implementation,
    handlers: Handlers,
    limits: ClientLimits,
    next_id: AtomicI64,
    /// Per tool, its `x-mcp-header` annotations: (property, header name).
    param_headers: std::sync::Mutex<std::collections::HashMap<String, Vec<(String, String)>>>,
}

impl Client {
    /// A client of the streamable HTTP endpoint at `url`.
    pub fn http(url: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(Target::Http(url.into()))
    }

    /// A client of a server spawned as `command args...`, speaking
    /// newline-delimited JSON on its stdin and stdout.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> ClientBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ClientBuilder::new(Target::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
        })
    }

    /// The capabilities this client declares on every request.
    pub fn capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }

    /// Records the `x-mcp-header` annotations of listed tools (SEP-2243).
    fn remember_param_headers(&self, tools: &[Tool]) {
        let Ok(mut map) = self.param_headers.lock() else {
            return;
        };
        for tool in tools {
            let Some(Value::Object(properties)) = tool.input_schema.get("properties") else {
                continue;
            };
            let headers: Vec<(String, String)> = properties
                .iter()
                .filter_map(|(name, p)| {
                    let header = p.get("x-mcp-header")?.as_str()?;
                    Some((name.clone(), header.to_owned()))
                })
                .collect();
            if !headers.is_empty() {
                map.insert(tool.name.clone(), headers);
            }
        }
    }

    /// The `Mcp-Param-*` headers mirroring a `tools/call`'s annotated
    /// arguments; null or absent arguments are omitted.
    fn param_headers_for(&self, method: &str, params: &JsonObject) -> Vec<(String, String)> {
        if method != TOOLS_CALL {
            return Vec::new();
        }
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Vec::new();
        };
        let Ok(map) = self.param_headers.lock() else {
            return Vec::new();
        };
        let Some(annotated) = map.get(name) else {
            return Vec::new();
        };
        let arguments = params.get("arguments").and_then(Value::as_object);
        annotated
            .iter()
            .filter_map(|(property, header)| {
                let value = match arguments?.get(property)? {
                    Value::String(s) => s.clone(),
                    Value::Bool(b) => b.to_string(),
                    Value::Number(n) => n.to_string(),
                    _ => return None,
                };
                Some((format!("mcp-param-{header}"), value))
            })
            .collect()
    }

    /// The per-request `_meta` object, declaring `capabilities`.
    fn meta(&self, capabilities: &ClientCapabilities) -> JsonObject {
        let mut meta = RequestMeta::new(capabilities.clone());
        meta.client_info = Some(self.client_info.clone());
        meta.to_json()
    }

    /// Sends `method` with `params` (plus `_meta`) under a fresh id and
    /// returns the `result` value, or the server's error.
    async fn request(&self, method: &str, params: JsonObject) -> Result<Value, ClientError> {
        self.request_as(method, params, &self.capabilities).await
    }

    /// [`Client::request`] declaring `capabilities` (those of a call with a
    /// per-call handler) instead of the client's.
    async fn request_as(
        &self,
        method: &str,
        mut params: JsonObject,
        capabilities: &ClientCapabilities,
    ) -> Result<Value, ClientError> {
        params.insert("_meta".into(), Value::Object(self.meta(capabilities)));
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let extra = self.param_headers_for(method, &params);
        let mut response = self.transport.send(&id, &body, &extra).await?;
        if let Some(error) = response.get_mut("error") {
            let error = serde_json::from_value(error.take()).map_err(|e| {
                ClientError::MalformedResponse(format!("unreadable error object: {e}"))
            })?;
            return Err(ClientError::Protocol(error));
        }
        match response.get_mut("result") {
            Some(result) => Ok(result.take()),
            None => Err(ClientError::MalformedResponse(
                "a response without result or error".into(),
            )),
        }
    }

    /// A request whose result must be complete (discovery, lists).
    async fn request_complete<T: DeserializeOwned>(
        &self,
        method: &str,
        params: JsonObject,
    ) -> Result<T, ClientError> {
        let result = self.request(method, params).await?;
        match result_type(&result)? {
            ResultType::Complete => decode(result),
            ResultType::InputRequired => Err(ClientError::MalformedResponse(format!(
                "{method} must not return input_required"
            ))),
            ResultType::Other(kind) => Err(ClientError::UnknownResultType(kind)),
        }
    }

    /// `server/discover`: versions, capabilities and instructions.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        self.request_complete(SERVER_DISCOVER, JsonObject::new())
            .await
    }

    /// Follows `nextCursor` through every page of a `*/list` method.
    ///
    /// At most [`ClientLimits::max_list_pages`] pages are read, and a cursor the server
    /// already returned ends the walk with an error instead of a loop.
    async fn list_all<P: Page>(&self, method: &str) -> Result<Vec<P::Item>, ClientError> {
        let mut items = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut cursor: Option<String> = None;
        let max_pages = self.limits.max_list_pages;
        for _ in 0..max_pages {
            let mut params = JsonObject::new();
            if let Some(cursor) = cursor.take() {
                params.insert("cursor".into(), cursor.into());
            }
            let (page, next) = self.request_complete::<P>(method, params).await?.split();
            items.extend(page);
            match next {
                Some(next) if !next.is_empty() => {
                    if !seen.insert(next.clone()) {
                        return Err(ClientError::MalformedResponse(format!(
                            "{method} returned the cursor {next:?} twice"
                        )));
                    }
                    cursor = Some(next);
                }
                _ => return Ok(items),
            }
        }
        Err(ClientError::MalformedResponse(format!(
            "{method} had more than {max_pages} pages"
        )))
    }

    /// `tools/list`, following `nextCursor` through every page.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let tools = self.list_all::<ListToolsResult>(TOOLS_LIST).await?;
        self.remember_param_headers(&tools);
        Ok(tools)
    }

    /// `prompts/list`, following `nextCursor` through every page.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.list_all::<ListPromptsResult>(PROMPTS_LIST).await
    }

    /// `resources/list`, following `nextCursor` through every page.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list_all::<ListResourcesResult>(RESOURCES_LIST).await
    }

    /// `resources/templates/list`, following `nextCursor` through every page.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list_all::<ListResourceTemplatesResult>(RESOURCES_TEMPLATES_LIST)
            .await
    }

    /// `completion/complete`: values for `argument` of a prompt or a
    /// resource template, given the values of other arguments in `context`.
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: CompletionArgument,
        context: Option<CompletionContext>,
    ) -> Result<Completion, ClientError> {
        let mut params = JsonObject::new();
        params.insert("ref".into(), to_value(&reference)?);
        params.insert("argument".into(), to_value(&argument)?);
        if let Some(context) = context {
            params.insert("context".into(), to_value(&context)?);
        }
        let result: CompleteResult = self.request_complete(COMPLETION_COMPLETE, params).await?;
        Ok(result.completion)
    }

    /// `tools/call`, fulfilling input requests until the result is complete.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallToolResult, ClientError> {
        self.fulfilling(TOOLS_CALL, tool_params(name, arguments))
            .await
    }

    /// One round of `tools/call`: the complete result or the
    /// `InputRequiredResult`, with `retry` carrying the answers and state
    /// of a previous round.
    pub async fn call_tool_once(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        retry: &Retry,
    ) -> Result<Step<CallToolResult>, ClientError> {
        self.once(TOOLS_CALL, tool_params(name, arguments), retry)
            .await
    }

    /// `prompts/get`, fulfilling input requests until the result is complete.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<GetPromptResult, ClientError> {
        self.fulfilling(PROMPTS_GET, tool_params(name, arguments))
            .await
    }

    /// One round of `prompts/get` (see [`Client::call_tool_once`]).
    pub async fn get_prompt_once(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        retry: &Retry,
    ) -> Result<Step<GetPromptResult>, ClientError> {
        self.once(PROMPTS_GET, tool_params(name, arguments), retry)
            .await
    }

    /// `resources/read`, fulfilling input requests until the result is complete.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        self.fulfilling(RESOURCES_READ, uri_params(uri)).await
    }

    /// One round of `resources/read` (see [`Client::call_tool_once`]).
    pub async fn read_resource_once(
        &self,
        uri: &str,
        retry: &Retry,
    ) -> Result<Step<ReadResourceResult>, ClientError> {
        self.once(RESOURCES_READ, uri_params(uri), retry).await
    }
}

fn tool_params(name: &str, arguments: Option<JsonObject>) -> JsonObject {
    let mut params = JsonObject::new();
    params.insert("name".into(), name.into());
    if let Some(arguments) = arguments {
        params.insert("arguments".into(), Value::Object(arguments));
    }
    params
}

fn uri_params(uri: &str) -> JsonObject {
    let mut params = JsonObject::new();
    params.insert("uri".into(), uri.into());
    params
}

/// The `resultType` of a result; absent means complete (older servers).
fn result_type(result: &Value) -> Result<ResultType, ClientError> {
    match result.get("resultType") {
        None => Ok(ResultType::Complete),
        Some(kind) => serde_json::from_value(kind.clone())
            .map_err(|e| ClientError::MalformedResponse(format!("bad resultType: {e}"))),
    }
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, ClientError> {
    serde_json::to_value(value).map_err(|e| ClientError::Encode(e.to_string()))
}

/// A page of a `*/list` result: its items and the next cursor.
trait Page: DeserializeOwned {
    /// What the list holds.
    type Item;
    /// The items and `nextCursor`.
    fn split(self) -> (Vec<Self::Item>, Option<String>);
}

macro_rules! page {
    ($result:ty, $field:ident, $item:ty) => {
        impl Page for $result {
            type Item = $item;
            fn split(self) -> (Vec<$item>, Option<String>) {
                (self.$field, self.next_cursor)
            }
        }
    };
}

page!(ListToolsResult, tools, Tool);
page!(ListPromptsResult, prompts, Prompt);
page!(ListResourcesResult, resources, Resource);
page!(
    ListResourceTemplatesResult,
    resource_templates,
    ResourceTemplate
);

fn decode<T: DeserializeOwned>(result: Value) -> Result<T, ClientError> {
    serde_json::from_value(result)
        .map_err(|e| ClientError::MalformedResponse(format!("unexpected result shape: {e}")))
}

/// The capabilities a set of handlers amounts to.
fn capabilities_of(form: bool, url: bool, sampling: bool, roots: bool) -> ClientCapabilities {
    let mut caps = ClientCapabilities::default();
    if form || url {
        caps.elicitation = Some(ElicitationCapability {
            form: form.then(JsonObject::new),
            url: url.then(JsonObject::new),
            extra: JsonObject::new(),
        });
    }
    if sampling {
        caps.sampling = Some(Default::default());
    }
    if roots {
        caps.roots = Some(JsonObject::new());
    }
    caps
}
