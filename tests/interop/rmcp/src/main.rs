//! The official Rust SDK, rmcp 3.11, serving the interop tool set that our
//! client is tested against, in one protocol era:
//!
//! - `--era 2025` (the default): the server supports the versions up to
//!   2025-11-25 only. Clients open with `initialize`; over HTTP rmcp keeps a
//!   session per client (`MCP-Session-Id`); `elicit_name` and `sample` ask
//!   through server-to-client requests (`elicitation/create`,
//!   `sampling/createMessage`); `resources/subscribe` is answered.
//! - `--era 2026`: the server supports 2026-07-28 only (stateless: no
//!   `initialize`, `server/discover` and per-request `_meta`; over HTTP
//!   every request is served on its own, with no session). `elicit_name` and
//!   `sample` answer an `InputRequiredResult` (`resultType: "input_required"`,
//!   one entry in `inputRequests`, a `requestState` naming the tool) and
//!   complete when the client retries with `inputResponses`;
//!   `notifications/tools/list_changed` and `notifications/resources/updated`
//!   go to the client's `subscriptions/listen` streams.
//!
//! The tools, the same in both eras:
//! - `elicit_name`: a form elicitation ("What is your name?", one required
//!   string `name`); `Hello, NAME!`, `declined` or `cancelled`;
//! - `sample`: a sampling request (one user message "Say hi", maxTokens 50);
//!   `sampled: TEXT`;
//! - `progress`: three `notifications/progress` for the request's progress
//!   token (1..3 of 3, "step N", 50 ms apart); `done`;
//! - `add_tool`: adds the tool `added` (answers `added`) and announces
//!   `notifications/tools/list_changed`; `ok` (a second call is a no-op);
//! - `slow`: waits up to 30 s; when the client cancels (rmcp cancels the
//!   request context's token on `notifications/cancelled`, or when the HTTP
//!   stream of a stateless request closes) it stops and counts; `finished`
//!   when it ran to the end;
//! - `cancelled_count`: how many `slow` calls were cancelled, in this process;
//! - `bump`: increments the counter behind the resource `test://counter` and
//!   announces `notifications/resources/updated` to its subscribers.
//!
//! `rmcp-interop-server [--era 2025|2026] (--stdio | --http PORT)`: over
//! HTTP it serves `/mcp` on 127.0.0.1 (PORT 0 picks a free port) and prints
//! `listening on http://127.0.0.1:PORT/mcp` on stdout once listening.

// Sampling is deprecated by SEP-2577 but still in both eras' protocol, and
// the tool set exercises it; resources/subscribe is the 2025 era's.
#![allow(deprecated)]

use std::borrow::Cow;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CreateMessageRequest,
    CreateMessageRequestParams, ElicitRequest, ElicitRequestParams, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, JsonObject, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceUpdatedNotificationParam, SamplingMessage, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{Peer, RequestContext, RoleServer, SubscriptionContext, SubscriptionSink};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// The resource `bump` changes.
const COUNTER_URI: &str = "test://counter";
/// The key of the one input request `elicit_name` and `sample` make in the
/// 2026 era.
const INPUT_KEY: &str = "input";

/// The protocol era the server speaks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Era {
    /// Up to 2025-11-25: `initialize`, sessions, server-to-client requests.
    Legacy,
    /// 2026-07-28: stateless, `InputRequiredResult` rounds.
    Stateless,
}

/// What every connection (and, over stateless HTTP, every request) shares.
#[derive(Default)]
struct Shared {
    /// `slow` calls that were cancelled.
    cancelled: AtomicU64,
    /// The value of `test://counter`.
    counter: AtomicU64,
    /// Whether `add_tool` added `added`.
    added: AtomicBool,
    /// The 2025-era sessions subscribed to `test://counter`.
    subscribers: Mutex<Vec<Peer<RoleServer>>>,
    /// The open 2026-era `subscriptions/listen` streams.
    listeners: Mutex<Vec<SubscriptionSink>>,
}

/// The server; cloned for every connection (or stateless request).
#[derive(Clone)]
struct Interop {
    era: Era,
    shared: Arc<Shared>,
}

/// A tool result with one text item.
fn text(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text.into())]).into()
}

/// An internal error carrying `error`'s text.
fn internal(error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
}

/// The text of a sampling answer (`content` an object or an array).
fn sampled_text(result: &Value) -> String {
    let content = &result["content"];
    let first = content
        .as_array()
        .and_then(|a| a.first())
        .unwrap_or(content);
    first["text"].as_str().unwrap_or_default().to_owned()
}

/// What `elicit_name` answers for an elicitation result.
fn greeting(result: &Value) -> String {
    match result["action"].as_str() {
        Some("accept") => format!(
            "Hello, {}!",
            result["content"]["name"].as_str().unwrap_or_default()
        ),
        Some("decline") => "declined".to_owned(),
        _ => "cancelled".to_owned(),
    }
}

/// The form `elicit_name` asks for.
fn name_schema() -> Result<ElicitationSchema, ErrorData> {
    serde_json::from_value(json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"]
    }))
    .map_err(internal)
}

/// The elicitation `elicit_name` makes.
fn name_request() -> Result<ElicitRequestParams, ErrorData> {
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: "What is your name?".to_owned(),
        requested_schema: name_schema()?,
    })
}

/// The sampling request `sample` makes.
fn sample_request() -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(vec![SamplingMessage::user_text("Say hi")], 50)
}

/// A tool with no arguments.
fn tool(name: &'static str, description: &'static str) -> Tool {
    let mut schema = JsonObject::new();
    schema.insert("type".to_owned(), json!("object"));
    Tool::new(name, description, Arc::new(schema))
}

impl Interop {
    /// One round of the 2026-era flow of `tool`: the answer to the input
    /// request when the client retried with it, else an
    /// `InputRequiredResult` asking `request`.
    fn input_round(
        request: &CallToolRequestParams,
        ask: impl FnOnce() -> Result<InputRequest, ErrorData>,
    ) -> Result<Result<Value, CallToolResponse>, ErrorData> {
        let answered = request.request_state.as_deref() == Some(request.name.as_ref());
        if answered
            && let Some(answer) = request
                .input_responses
                .as_ref()
                .and_then(|responses| responses.get(INPUT_KEY))
        {
            return Ok(Ok(answer.clone()));
        }
        let mut requests = InputRequests::new();
        requests.insert(INPUT_KEY.to_owned(), ask()?);
        Ok(Err(InputRequiredResult::new(
            Some(requests),
            Some(request.name.to_string()),
        )
        .into()))
    }

    async fn elicit_name(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let answer = match self.era {
            Era::Stateless => match Self::input_round(request, || {
                Ok(InputRequest::Elicitation(ElicitRequest::new(
                    name_request()?
                )))
            })? {
                Ok(answer) => answer,
                Err(ask) => return Ok(ask),
            },
            Era::Legacy => {
                let result = context
                    .peer
                    .create_elicitation(name_request()?)
                    .await
                    .map_err(internal)?;
                serde_json::to_value(result).map_err(internal)?
            }
        };
        Ok(text(greeting(&answer)))
    }

    async fn sample(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let answer = match self.era {
            Era::Stateless => match Self::input_round(request, || {
                Ok(InputRequest::CreateMessage(CreateMessageRequest::new(
                    sample_request(),
                )))
            })? {
                Ok(answer) => answer,
                Err(ask) => return Ok(ask),
            },
            Era::Legacy => {
                let result = context
                    .peer
                    .create_message(sample_request())
                    .await
                    .map_err(internal)?;
                serde_json::to_value(result).map_err(internal)?
            }
        };
        Ok(text(format!("sampled: {}", sampled_text(&answer))))
    }

    async fn progress(&self, context: &RequestContext<RoleServer>) -> CallToolResponse {
        let token = context.meta.get_progress_token();
        for step in 1..=3u32 {
            if let Some(token) = token.clone() {
                let mut param = ProgressNotificationParam::new(token, f64::from(step));
                param.total = Some(3.0);
                param.message = Some(format!("step {step}"));
                if let Err(error) = context.peer.notify_progress(param).await {
                    eprintln!("progress: {error}");
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        text("done")
    }

    async fn add_tool(&self, context: &RequestContext<RoleServer>) -> CallToolResponse {
        if !self.shared.added.swap(true, Ordering::SeqCst) {
            match self.era {
                Era::Legacy => {
                    if let Err(error) = context.peer.notify_tool_list_changed().await {
                        eprintln!("add_tool: {error}");
                    }
                }
                Era::Stateless => {
                    for sink in self.listeners() {
                        if let Err(error) = sink.notify_tool_list_changed().await {
                            eprintln!("add_tool: {error}");
                        }
                    }
                }
            }
        }
        text("ok")
    }

    async fn slow(&self, context: &RequestContext<RoleServer>) -> CallToolResponse {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(30)) => text("finished"),
            () = context.ct.cancelled() => {
                let count = self.shared.cancelled.fetch_add(1, Ordering::SeqCst) + 1;
                eprintln!("slow: cancelled ({count} so far)");
                text("cancelled")
            }
        }
    }

    async fn bump(&self) -> CallToolResponse {
        let value = self.shared.counter.fetch_add(1, Ordering::SeqCst) + 1;
        match self.era {
            Era::Legacy => {
                let peers = self
                    .shared
                    .subscribers
                    .lock()
                    .map(|s| s.clone())
                    .unwrap_or_default();
                for peer in peers {
                    let param = ResourceUpdatedNotificationParam::new(COUNTER_URI);
                    if let Err(error) = peer.notify_resource_updated(param).await {
                        eprintln!("bump: {error}");
                    }
                }
            }
            Era::Stateless => {
                for sink in self.listeners() {
                    if let Err(error) = sink.notify_resource_updated(COUNTER_URI).await {
                        eprintln!("bump: {error}");
                    }
                }
            }
        }
        text(value.to_string())
    }

    /// The open `subscriptions/listen` streams.
    fn listeners(&self) -> Vec<SubscriptionSink> {
        self.shared
            .listeners
            .lock()
            .map(|l| l.clone())
            .unwrap_or_default()
    }
}

impl ServerHandler for Interop {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_subscribe()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.protocol_version = match self.era {
            Era::Legacy => ProtocolVersion::V_2025_11_25,
            Era::Stateless => ProtocolVersion::V_2026_07_28,
        };
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        match self.era {
            Era::Legacy => {
                Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
            }
            Era::Stateless => Cow::Owned(vec![ProtocolVersion::V_2026_07_28]),
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = vec![
            tool("elicit_name", "Asks the client for a name."),
            tool("sample", "Asks the client's model to say hi."),
            tool("progress", "Reports three steps of progress."),
            tool("add_tool", "Registers the tool `added`."),
            tool("slow", "Waits 30 s unless cancelled."),
            tool("cancelled_count", "How many slow calls were cancelled."),
            tool("bump", "Increments test://counter."),
        ];
        if self.shared.added.load(Ordering::SeqCst) {
            tools.push(tool("added", "Added at run time."));
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "elicit_name" => self.elicit_name(&request, &context).await,
            "sample" => self.sample(&request, &context).await,
            "progress" => Ok(self.progress(&context).await),
            "add_tool" => Ok(self.add_tool(&context).await),
            "slow" => Ok(self.slow(&context).await),
            "cancelled_count" => Ok(text(
                self.shared.cancelled.load(Ordering::SeqCst).to_string(),
            )),
            "bump" => Ok(self.bump().await),
            "added" if self.shared.added.load(Ordering::SeqCst) => Ok(text("added")),
            other => Err(ErrorData::invalid_params(
                format!("unknown tool: {other}"),
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut counter = Resource::new(COUNTER_URI, "counter");
        counter.mime_type = Some("text/plain".to_owned());
        Ok(ListResourcesResult::with_all_items(vec![counter]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != COUNTER_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        let value = self.shared.counter.load(Ordering::SeqCst).to_string();
        Ok(ReadResourceResult::new(vec![ResourceContents::text(value, COUNTER_URI)]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if request.uri == COUNTER_URI
            && let Ok(mut subscribers) = self.shared.subscribers.lock()
        {
            subscribers.push(context.peer);
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // rmcp's Peer has no identity to compare; the subscription stays
        // until the process ends (notifications to a closed peer fail).
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = requested.tools_list_changed;
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            uris.iter()
                .filter(|uri| *uri == COUNTER_URI)
                .cloned()
                .collect()
        });
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        if let Ok(mut listeners) = self.shared.listeners.lock() {
            listeners.push(sink);
        }
        context.cancelled().await;
        Ok(())
    }
}

/// How the server was asked to run.
struct Options {
    era: Era,
    /// `None` for stdio, else the HTTP port.
    http: Option<u16>,
}

const USAGE: &str = "usage: rmcp-interop-server [--era 2025|2026] (--stdio | --http PORT)";

fn options() -> Result<Options, String> {
    let mut era = Era::Legacy;
    let mut transport: Option<Option<u16>> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--era" => {
                era = match args.next().as_deref() {
                    Some("2025") => Era::Legacy,
                    Some("2026") => Era::Stateless,
                    other => return Err(format!("--era {other:?}: want 2025 or 2026")),
                }
            }
            "--stdio" => transport = Some(None),
            "--http" => {
                let port = args
                    .next()
                    .and_then(|p| p.parse::<u16>().ok())
                    .ok_or("--http wants a port")?;
                transport = Some(Some(port));
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let http = transport.ok_or("--stdio or --http PORT is required")?;
    Ok(Options { era, http })
}

async fn serve_stdio(server: Interop) -> Result<(), String> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("serving stdio: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| format!("stdio service: {e}"))?;
    Ok(())
}

async fn serve_http(server: Interop, port: u16) -> Result<(), String> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(server.era == Era::Legacy)
        .with_sse_keep_alive(None);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("binding 127.0.0.1:{port}: {e}"))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    println!("listening on http://{address}/mcp");
    axum::serve(listener, app)
        .await
        .map_err(|e| format!("serving HTTP: {e}"))
}

#[tokio::main]
async fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let server = Interop {
        era: options.era,
        shared: Arc::default(),
    };
    let served = match options.http {
        None => serve_stdio(server).await,
        Some(port) => serve_http(server, port).await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rmcp-interop-server: {message}");
            ExitCode::FAILURE
        }
    }
}
