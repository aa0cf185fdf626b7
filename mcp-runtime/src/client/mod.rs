//! A client for MCP servers of both eras, over streamable HTTP or stdio.
//!
//! [`ClientBuilder::connect`] finds the server's era: it sends
//! `server/discover` (MCP 2026-07-28) and, when the server does not know
//! it, opens a 2025-era session with `initialize` (2025-11-25, 2025-06-18
//! or 2025-03-26); [`ClientBuilder::pin_era`] skips the probe. From then on
//! the client speaks what was negotiated:
//!
//! - **2026-07-28**: every request carries the per-request `_meta`
//!   (protocol version, the client capabilities derived from the registered
//!   handlers, client info); over HTTP also the `MCP-Protocol-Version`,
//!   `Mcp-Method` and `Mcp-Name` headers.
//! - **2025 era**: the session's `MCP-Session-Id` and `MCP-Protocol-Version`
//!   go with every HTTP request, the server's own requests
//!   (`elicitation/create`, `sampling/createMessage`, `roots/list`, `ping`)
//!   are answered by the same handlers that fulfil `input_required`
//!   results, a stream the server closes is resumed with `Last-Event-ID`,
//!   an expired session is opened anew, and the session ends with `DELETE`
//!   when the client is closed. Over stdio the child's output is read for
//!   the server's requests and notifications too.
//!
//! In both eras a call's progress goes to [`Call::on_progress`], every
//! notification to [`ClientBuilder::on_notification`], and a call whose
//! future is dropped is cancelled on the server (`notifications/cancelled`,
//! or a closed stream over 2026-07-28 HTTP). `call_tool`, `get_prompt` and `read_resource` fulfil
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
#[cfg(feature = "auth")]
pub mod auth;
#[cfg(not(feature = "auth"))]
#[path = "signed_out.rs"]
mod auth;
mod builder;
mod call;
mod era;
mod error;
mod fulfil;
mod inbound;
mod lists;
mod logging;
mod notifications;
mod raw;
mod redirect;
mod subscriptions;
#[cfg(feature = "tasks")]
mod tasks;
mod wire;

pub use answering::{Asked, InputResponse};
#[allow(deprecated)]
pub use builder::{
    ClientBuilder, ClientLimits, DEFAULT_MAX_DURATION, DEFAULT_MAX_ROUNDS, MAX_LIST_PAGES,
};
pub use call::{Call, arguments};
pub use era::Era;
pub use error::ClientError;
pub use fulfil::{Handlers, Retry, Step, form_answer};
pub use lists::ListKind;
pub use notifications::{Direction, ServerNotification};
pub use subscriptions::Subscription;
#[cfg(feature = "tasks")]
#[cfg_attr(docsrs, doc(cfg(feature = "tasks")))]
pub use tasks::{Started, TaskHandle};

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, RwLock};

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use builder::Target;
use era::Negotiated;
use inbound::Router;
use wire::Wire;

use crate::schema::request_methods::{
    COMPLETION_COMPLETE, PROMPTS_GET, RESOURCES_READ, SERVER_DISCOVER, TOOLS_CALL,
};
use crate::schema::{
    CallToolResult, ClientCapabilities, CompleteResult, Completion, CompletionArgument,
    CompletionContext, CompletionReference, DiscoverResult, ElicitationCapability, GetPromptResult,
    Implementation, JsonObject, ProgressToken, ReadResourceResult, RequestId, RequestMeta,
    ResultType, ServerCapabilities, Tool, notification_methods,
};

/// The tasks that keep a connection going: sending the answers to the
/// server's requests, and a 2025-era HTTP session's GET stream. Stopped
/// when the client is dropped.
struct Background {
    replies: JoinHandle<()>,
    stream: std::sync::Mutex<Option<JoinHandle<()>>>,
}

impl Background {
    fn start(
        wire: &Wire,
        router: &Arc<Router>,
        mut queue: tokio::sync::mpsc::Receiver<Value>,
    ) -> Self {
        let (wire, router_for_replies) = (wire.clone(), Arc::clone(router));
        let replies = tokio::spawn(async move {
            while let Some(reply) = queue.recv().await {
                if let Err(e) = wire.send(&router_for_replies, &reply).await {
                    tracing::warn!("cannot send an answer to the server: {e}");
                }
            }
        });
        Self {
            replies,
            stream: std::sync::Mutex::new(None),
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.replies.abort();
        if let Ok(Some(stream)) = self.stream.lock().map(|mut s| s.take()) {
            stream.abort();
        }
    }
}

/// A connection to one MCP server.
pub struct Client {
    /// How errors name the server: its URL or command.
    target: String,
    wire: Wire,
    router: Arc<Router>,
    background: Background,
    negotiated: RwLock<Negotiated>,
    capabilities: ClientCapabilities,
    /// The handlers the fulfil loop uses (the router holds a copy for the
    /// server's requests).
    handlers: Handlers,
    client_info: Implementation,
    limits: ClientLimits,
    next_id: Arc<AtomicI64>,
    /// Per tool, its `x-mcp-header` annotations: (property, header name).
    param_headers: std::sync::Mutex<HashMap<String, Vec<(String, String)>>>,
    lists: lists::ListCache,
    /// The log level asked for with [`Client::set_log_level`].
    log_level: RwLock<Option<crate::schema::LoggingLevel>>,
}

impl Drop for Client {
    fn drop(&mut self) {
        // A 2025-era HTTP session ends with DELETE, sent from a task of its
        // own when a runtime is there to run it ([`Client::close`] awaits it).
        if let (Some(http), Ok(handle)) = (self.wire.http(), tokio::runtime::Handle::try_current())
            && http.session_id().is_some()
        {
            let http = Arc::clone(http);
            handle.spawn(async move { http.end_session().await });
        }
    }
}

impl Client {
    /// A client of the streamable HTTP endpoint at `url`.
    pub fn http(url: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(Target::Http(url.into()))
    }

    /// A client of a server spawned as `command args...`, speaking
    /// newline-delimited JSON on its stdin and stdout. The child's stderr
    /// goes to this process's stderr; the child is killed when the client
    /// is dropped.
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

    /// The capabilities this client declares: on every request in the
    /// 2026-07-28 era, in `initialize` in the 2025 era.
    pub fn capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }

    /// The era negotiated with the server.
    pub fn era(&self) -> Era {
        self.read_negotiated(|n| n.era)
    }

    /// The protocol version negotiated with the server.
    pub fn protocol_version(&self) -> String {
        self.read_negotiated(|n| n.protocol_version.clone())
    }

    /// What the server offers, as `server/discover` or `initialize` said.
    pub fn server_capabilities(&self) -> ServerCapabilities {
        self.read_negotiated(|n| n.capabilities.clone())
    }

    /// The server's name and version, when it gave them.
    pub fn server_info(&self) -> Option<Implementation> {
        self.read_negotiated(|n| n.server_info.clone())
    }

    /// How the server says it is to be used, when it says.
    pub fn instructions(&self) -> Option<String> {
        self.read_negotiated(|n| n.instructions.clone())
    }

    /// Ends the connection: a 2025-era HTTP session is ended with `DELETE`
    /// (awaited), a stdio server is killed.
    pub async fn close(self) {
        if let Some(http) = self.wire.http() {
            http.end_session().await;
            http.set_session(None, None);
        }
    }

    /// Tells a 2025-era server that the client's roots changed
    /// (`notifications/roots/list_changed`); it will ask for them again.
    /// Nothing is sent in the 2026-07-28 era, where a server asks for the
    /// roots in each call that needs them.
    pub async fn notify_roots_changed(&self) -> Result<(), ClientError> {
        if self.era() == Era::Legacy {
            self.notify("notifications/roots/list_changed", None)
                .await?;
        }
        Ok(())
    }

    /// Reads what was negotiated without copying the rest of it (the era
    /// is read on every request).
    fn read_negotiated<T>(&self, read: impl FnOnce(&Negotiated) -> T) -> T {
        match self.negotiated.read() {
            Ok(negotiated) => read(&negotiated),
            Err(_) => read(&Negotiated::unknown()),
        }
    }

    fn set_negotiated(&self, negotiated: Negotiated) {
        if let Ok(mut current) = self.negotiated.write() {
            *current = negotiated;
        }
    }

    /// Opens the GET stream of a 2025-era HTTP session; over stdio the
    /// server's messages flow anyway.
    ///
    /// It returns once the server answered the GET (or within
    /// [`ClientLimits::connect_timeout`]): some servers send their requests
    /// on that stream alone, and drop them while it is not open.
    async fn open_session_stream(&self) {
        match &self.wire {
            Wire::Stdio(_) => self.router.set_hearing(true),
            Wire::Http(http) => {
                let (http, router) = (Arc::clone(http), Arc::clone(&self.router));
                let (opened, is_open) = tokio::sync::oneshot::channel();
                let task = tokio::spawn(async move { http.listen(router, opened).await });
                if let Ok(mut stream) = self.background.stream.lock()
                    && let Some(old) = stream.replace(task)
                {
                    old.abort();
                }
                let limit = self.limits.connect_timeout;
                if tokio::time::timeout(limit, is_open).await.is_err() {
                    tracing::debug!(
                        "{}: the session's GET stream is not open after {limit:?}",
                        self.target
                    );
                }
            }
        }
    }

    /// A progress token no other call of this client uses.
    fn progress_token(&self) -> ProgressToken {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        ProgressToken::String(format!("progress-{n}"))
    }

    /// Sends `token`'s progress to `handler` until the guard is dropped.
    fn watch_progress(
        &self,
        token: ProgressToken,
        handler: inbound::ProgressHandler,
    ) -> ProgressWatch<'_> {
        self.router.watch_progress(token.clone(), handler);
        ProgressWatch {
            router: &self.router,
            token,
        }
    }

    /// Sends a notification.
    async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.wire.send(&self.router, &message).await
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

    /// Sends `method` with `params` under a fresh id and returns the
    /// `result` value, or the server's error.
    async fn request(&self, method: &str, params: JsonObject) -> Result<Value, ClientError> {
        self.request_as(method, params, &self.capabilities, None)
            .await
    }

    /// [`Client::request`] declaring `capabilities` (those of a call with a
    /// per-call handler) instead of the client's, and asking for progress
    /// under `progress`. A 2025-era session that expired is opened anew
    /// and the request sent once more.
    async fn request_as(
        &self,
        method: &str,
        params: JsonObject,
        capabilities: &ClientCapabilities,
        progress: Option<&ProgressToken>,
    ) -> Result<Value, ClientError> {
        let era = self.era();
        let framed = Framed {
            capabilities,
            progress,
        };
        match self
            .request_framed(era, method, params.clone(), &framed)
            .await
        {
            Err(ClientError::SessionExpired) if era == Era::Legacy => {
                tracing::info!("{}: the session expired; opening a new one", self.target);
                self.initialize().await?;
                self.request_framed(era, method, params, &framed).await
            }
            other => other,
        }
    }

    /// Sends a request framed for `era` (used before the era is known).
    async fn request_in(
        &self,
        era: Era,
        method: &str,
        params: JsonObject,
        progress: Option<&ProgressToken>,
    ) -> Result<Value, ClientError> {
        let framed = Framed {
            capabilities: &self.capabilities,
            progress,
        };
        self.request_framed(era, method, params, &framed).await
    }

    async fn request_framed(
        &self,
        era: Era,
        method: &str,
        params: JsonObject,
        framed: &Framed<'_>,
    ) -> Result<Value, ClientError> {
        let (id, body, headers) = self.frame(era, method, params, framed);
        let response = self.exchange(era, method, &id, &body, &headers).await?;
        self.result_of(method, response)
    }

    /// A request ready to send: its id, its message, its extra headers.
    fn frame(
        &self,
        era: Era,
        method: &str,
        mut params: JsonObject,
        framed: &Framed<'_>,
    ) -> (RequestId, Value, Vec<(String, String)>) {
        match era {
            Era::Modern => {
                let mut meta = RequestMeta::new(framed.capabilities.clone());
                meta.client_info = Some(self.client_info.clone());
                meta.progress_token = framed.progress.cloned();
                meta.log_level = self.log_level();
                params.insert("_meta".into(), Value::Object(meta.to_json()));
            }
            Era::Legacy => {
                if let Some(token) = framed.progress {
                    params.insert("_meta".into(), json!({"progressToken": token}));
                }
            }
        }
        let id = self.next_request_id();
        let headers = match era {
            Era::Modern => self.param_headers_for(method, &params),
            Era::Legacy => Vec::new(),
        };
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, body, headers)
    }

    /// An id no other request of this client uses.
    fn next_request_id(&self) -> RequestId {
        RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// The `result` of a response, or the server's error.
    fn result_of(&self, method: &str, mut response: Value) -> Result<Value, ClientError> {
        if let Some(error) = response.get_mut("error") {
            let error = serde_json::from_value(error.take()).map_err(|e| {
                ClientError::MalformedResponse(format!(
                    "{}: {method}: unreadable error object: {e}",
                    self.target
                ))
            })?;
            return Err(ClientError::Protocol(error));
        }
        match response.get_mut("result") {
            Some(result) => Ok(result.take()),
            None => Err(ClientError::MalformedResponse(format!(
                "{}: the response to {method} has neither result nor error",
                self.target
            ))),
        }
    }

    /// Sends one request and awaits its response within
    /// [`ClientLimits::request_timeout`]. Dropped before the response, or
    /// timed out, the request is cancelled on the server.
    async fn exchange(
        &self,
        era: Era,
        method: &str,
        id: &RequestId,
        body: &Value,
        headers: &[(String, String)],
    ) -> Result<Value, ClientError> {
        let mut in_flight = InFlight {
            client: self,
            era,
            id,
            done: false,
        };
        let limit = self.limits.request_timeout;
        let outcome =
            tokio::time::timeout(limit, self.wire.request(&self.router, id, body, headers)).await;
        match outcome {
            Ok(outcome) => {
                in_flight.done = true;
                outcome.map_err(|e| e.about(&self.target, method))
            }
            Err(_) => {
                tracing::warn!(
                    "{}: no response to {method} (id {id}) within {limit:?}; cancelling it",
                    self.target
                );
                Err(ClientError::Timeout(limit))
            }
        }
    }

    /// A request whose result must be complete (discovery, lists).
    async fn request_complete_value(
        &self,
        method: &str,
        params: JsonObject,
    ) -> Result<Value, ClientError> {
        let result = self.request(method, params).await?;
        match result_type(&result)? {
            ResultType::Complete => Ok(result),
            ResultType::InputRequired => Err(ClientError::MalformedResponse(format!(
                "{method} must not return input_required"
            ))),
            ResultType::Other(kind) => Err(ClientError::UnknownResultType(kind)),
        }
    }

    async fn request_complete<T: DeserializeOwned>(
        &self,
        method: &str,
        params: JsonObject,
    ) -> Result<T, ClientError> {
        decode(self.request_complete_value(method, params).await?)
    }

    /// `server/discover`: versions, capabilities and instructions (2026-07-28).
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        self.request_complete(SERVER_DISCOVER, JsonObject::new())
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

    /// `ping`: whether the server answers (2025 era; a 2026-07-28 server
    /// answers `server/discover` instead).
    pub async fn ping(&self) -> Result<(), ClientError> {
        match self.era() {
            Era::Legacy => self.request("ping", JsonObject::new()).await.map(drop),
            Era::Modern => self.discover().await.map(drop),
        }
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

/// A call's progress handler, removed when the call ends.
struct ProgressWatch<'a> {
    router: &'a Router,
    token: ProgressToken,
}

impl Drop for ProgressWatch<'_> {
    fn drop(&mut self) {
        self.router.unwatch_progress(&self.token);
    }
}

/// How one request is framed besides its params.
struct Framed<'a> {
    capabilities: &'a ClientCapabilities,
    progress: Option<&'a ProgressToken>,
}

/// A request awaiting its response. Dropped before the response came (the
/// caller's future was dropped, or the wait timed out), it tells the
/// server: `notifications/cancelled` in the 2025 era and over stdio; over
/// 2026-07-28 HTTP, closing the response stream (which dropping the
/// request did) is the cancellation.
struct InFlight<'a> {
    client: &'a Client,
    era: Era,
    id: &'a RequestId,
    done: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        let client = self.client;
        client.router.forget(self.id);
        if self.done {
            return;
        }
        let modern_http = self.era == Era::Modern && client.wire.http().is_some();
        if modern_http {
            return;
        }
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let message = json!({
            "jsonrpc": "2.0",
            "method": notification_methods::CANCELLED,
            "params": {"requestId": self.id, "reason": "the client no longer awaits the response"},
        });
        let (wire, router) = (client.wire.clone(), Arc::clone(&client.router));
        handle.spawn(async move {
            if let Err(e) = wire.send(&router, &message).await {
                tracing::debug!("cannot send notifications/cancelled: {e}");
            }
        });
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
