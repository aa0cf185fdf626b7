//! The one request path: validate, route, run the handler, finish the result.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::context::RequestData;
use super::registry::{Registry, Rendered};
use super::{
    Context, MethodHandler, Notifier, Outcome, ReceiveContext, Request, Server, headers, state_gate,
};
use crate::schema::{
    ClientCapabilities, CompleteRequestParams, DiscoverResult, ElicitRequestParams,
    ElicitationCapability, InputRequest, InputRequiredResult, InputResponses, JsonObject,
    JsonRpcErrorResponse, JsonRpcVersion, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, McpError, RequestId, RequestMeta, ResultType,
    SUPPORTED_PROTOCOL_VERSIONS, SamplingCapability,
};
use crate::state::BindingRequest;

/// The response to one request: a serialised result or an error.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    id: Option<RequestId>,
    body: Body,
}

#[derive(Debug, Clone, PartialEq)]
enum Body {
    /// The result object, already serialised as compact JSON.
    Result(String),
    Error(McpError),
}

impl Response {
    /// An error response; `id` is `None` only when the request's id was unreadable.
    pub fn error(id: Option<RequestId>, error: McpError) -> Self {
        Self {
            id,
            body: Body::Error(error),
        }
    }

    /// The id of the request this answers.
    pub fn id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// The error, when this is an error response.
    pub fn error_value(&self) -> Option<&McpError> {
        match &self.body {
            Body::Error(e) => Some(e),
            Body::Result(_) => None,
        }
    }

    /// The whole JSON-RPC response as compact, single-line JSON.
    pub fn to_json(&self) -> String {
        match &self.body {
            Body::Result(result) => {
                let id = self
                    .id
                    .as_ref()
                    .and_then(|id| serde_json::to_string(id).ok())
                    .unwrap_or_else(|| "null".to_owned());
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
            }
            Body::Error(error) => {
                let response = JsonRpcErrorResponse {
                    jsonrpc: JsonRpcVersion,
                    id: self.id.clone(),
                    error: error.to_object(),
                };
                serde_json::to_string(&response).unwrap_or_else(|_| {
                    r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}"#
                        .to_owned()
                })
            }
        }
    }
}

/// The methods a 2026-07-28 server may serve, resolved once per request.
enum Route {
    Discover,
    ToolsList,
    ToolsCall,
    PromptsList,
    PromptsGet,
    ResourcesList,
    ResourcesRead,
    TemplatesList,
    Complete,
    Listen,
    Custom(Arc<dyn MethodHandler>),
}

impl Server {
    /// Serves one request through the single dispatch path. `receive` says
    /// what the transport knows (caller, HTTP headers); `notifier` carries
    /// the notifications the handler emits.
    pub async fn handle_request(
        &self,
        request: Request,
        receive: ReceiveContext,
        notifier: Notifier,
    ) -> Response {
        let id = request.id.clone();
        let method = request.method.clone();
        let run = std::panic::AssertUnwindSafe(dispatch(&self.inner, request, receive, notifier));
        let outcome = match futures_util::FutureExt::catch_unwind(run).await {
            Ok(outcome) => outcome,
            Err(panic) => Err(McpError::internal(format!(
                "the handler panicked: {}",
                panic_message(panic.as_ref())
            ))),
        };
        match outcome {
            Ok(result) => Response {
                id: Some(id),
                body: Body::Result(result),
            },
            Err(error) => {
                log_error(&method, &id, &error);
                Response::error(Some(id), error)
            }
        }
    }

    /// The server's self-description.
    pub fn info(&self) -> &crate::schema::Implementation {
        &self.inner.info
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

fn log_error(method: &str, id: &RequestId, error: &McpError) {
    match error {
        McpError::Internal { detail } => {
            tracing::error!(method, %id, detail = %detail, "request failed with an internal error");
        }
        other => tracing::debug!(method, %id, error = %other, "request refused"),
    }
}

async fn dispatch(
    registry: &Registry,
    request: Request,
    receive: ReceiveContext,
    notifier: Notifier,
) -> Result<String, McpError> {
    let mut params = match request.params {
        Some(Value::Object(params)) => params,
        Some(_) => return Err(invalid_meta("params must be an object carrying _meta")),
        None => return Err(invalid_meta("params._meta is required")),
    };
    let meta = match params.get("_meta") {
        Some(Value::Object(meta)) => RequestMeta::from_json(meta).map_err(invalid_meta)?,
        Some(_) => return Err(invalid_meta("params._meta must be an object")),
        None => return Err(invalid_meta("params._meta is required")),
    };
    if let Some(headers) = &receive.headers {
        headers::check_protocol_version(headers, &meta.protocol_version)?;
    }
    if !SUPPORTED_PROTOCOL_VERSIONS.contains(&meta.protocol_version.as_str()) {
        return Err(McpError::UnsupportedProtocolVersion {
            requested: meta.protocol_version,
        });
    }
    if let Some(headers) = &receive.headers {
        headers::check_method_and_name(headers, &request.method, &params)?;
    }
    let route = route(registry, &request.method)?;
    let (input_responses, request_state) = match route {
        Route::ToolsCall | Route::PromptsGet | Route::ResourcesRead => {
            take_round_trip(&mut params)?
        }
        _ => (None, None),
    };
    let ctx = Context::from_data(RequestData {
        request_id: request.id,
        method: match route {
            Route::Custom(_) => Cow::Owned(request.method),
            _ => Cow::Borrowed(static_method(&request.method)),
        },
        meta,
        input_responses,
        request_state,
        receive,
        notifier,
        state_payload: None,
        signer: None,
        minted: Default::default(),
        shared: Arc::clone(&registry.shared),
        changes: registry.changes.clone(),
    });
    match route {
        Route::Discover => Rendered::get(&registry.rendered.discover, || {
            finish(registry, discover(registry))
        }),
        Route::ToolsList => {
            no_cursor(&params)?;
            Rendered::get(&registry.rendered.tools, || {
                finish(
                    registry,
                    ListToolsResult {
                        result_type: ResultType::Complete,
                        tools: registry.tools.descriptors().cloned().collect(),
                        next_cursor: None,
                        ttl_ms: registry.cache.lists.ttl_ms,
                        cache_scope: registry.cache.lists.scope,
                        meta: None,
                    },
                )
            })
        }
        Route::PromptsList => {
            no_cursor(&params)?;
            Rendered::get(&registry.rendered.prompts, || {
                finish(
                    registry,
                    ListPromptsResult {
                        result_type: ResultType::Complete,
                        prompts: registry.prompts.descriptors().cloned().collect(),
                        next_cursor: None,
                        ttl_ms: registry.cache.lists.ttl_ms,
                        cache_scope: registry.cache.lists.scope,
                        meta: None,
                    },
                )
            })
        }
        Route::ResourcesList => {
            no_cursor(&params)?;
            Rendered::get(&registry.rendered.resources, || {
                finish(
                    registry,
                    ListResourcesResult {
                        result_type: ResultType::Complete,
                        resources: registry.resources.descriptors().cloned().collect(),
                        next_cursor: None,
                        ttl_ms: registry.cache.lists.ttl_ms,
                        cache_scope: registry.cache.lists.scope,
                        meta: None,
                    },
                )
            })
        }
        Route::TemplatesList => {
            no_cursor(&params)?;
            Rendered::get(&registry.rendered.templates, || {
                finish(
                    registry,
                    ListResourceTemplatesResult {
                        result_type: ResultType::Complete,
                        resource_templates: registry
                            .templates
                            .iter()
                            .map(|(t, _)| t.descriptor.clone())
                            .collect(),
                        next_cursor: None,
                        ttl_ms: registry.cache.lists.ttl_ms,
                        cache_scope: registry.cache.lists.scope,
                        meta: None,
                    },
                )
            })
        }
        Route::ToolsCall => call_tool(registry, params, ctx).await,
        Route::PromptsGet => get_prompt(registry, params, ctx).await,
        Route::ResourcesRead => read_resource(registry, params, ctx).await,
        Route::Complete => {
            let Some(handler) = &registry.completion else {
                return Err(not_found("completion/complete"));
            };
            let params: CompleteRequestParams = serde_json::from_value(Value::Object(params))
                .map_err(|e| McpError::invalid_params(format!("invalid completion params: {e}")))?;
            let result = handler
                .complete(params.reference, params.argument, params.context, ctx)
                .await?;
            finish(registry, result)
        }
        Route::Listen => {
            let mut result = super::subscriptions::listen(registry, &params, ctx).await?;
            if let Some(server_meta) = &registry.result_meta {
                add_server_info(server_meta, &mut result.meta);
            }
            serialise(&result)
        }
        Route::Custom(handler) => {
            let method = ctx.data.method.clone();
            match handler.handle(params, ctx).await? {
                Outcome::Complete(value) => finish_custom(registry, value),
                Outcome::InputRequired(_) => Err(McpError::internal(format!(
                    "the handler of {method} returned an input_required result, \
                     which only tools/call, prompts/get and resources/read may return"
                ))),
            }
        }
    }
}

fn route(registry: &Registry, method: &str) -> Result<Route, McpError> {
    let has_resources = !registry.resources.is_empty() || !registry.templates.is_empty();
    let route = match method {
        "server/discover" => Some(Route::Discover),
        "tools/list" if !registry.tools.is_empty() => Some(Route::ToolsList),
        "tools/call" if !registry.tools.is_empty() => Some(Route::ToolsCall),
        "prompts/list" if !registry.prompts.is_empty() => Some(Route::PromptsList),
        "prompts/get" if !registry.prompts.is_empty() => Some(Route::PromptsGet),
        "resources/list" if has_resources => Some(Route::ResourcesList),
        "resources/read" if has_resources => Some(Route::ResourcesRead),
        "resources/templates/list" if has_resources => Some(Route::TemplatesList),
        "completion/complete" if registry.completion.is_some() => Some(Route::Complete),
        "subscriptions/listen" => Some(Route::Listen),
        other => registry.methods.get(other).cloned().map(Route::Custom),
    };
    route.ok_or_else(|| not_found(method))
}

fn static_method(method: &str) -> &'static str {
    match method {
        "server/discover" => "server/discover",
        "tools/list" => "tools/list",
        "tools/call" => "tools/call",
        "prompts/list" => "prompts/list",
        "prompts/get" => "prompts/get",
        "resources/list" => "resources/list",
        "resources/read" => "resources/read",
        "resources/templates/list" => "resources/templates/list",
        "completion/complete" => "completion/complete",
        "subscriptions/listen" => "subscriptions/listen",
        _ => "",
    }
}

/// Takes `inputResponses` and `requestState` out of the params, checking
/// their shapes: an object of objects, and a string.
fn take_round_trip(
    params: &mut JsonObject,
) -> Result<(Option<InputResponses>, Option<String>), McpError> {
    let responses = match params.remove("inputResponses") {
        None => None,
        Some(Value::Object(map)) => {
            if let Some((key, _)) = map.iter().find(|(_, v)| !v.is_object()) {
                return Err(McpError::invalid_params(format!(
                    "inputResponses[{key:?}] must be an object"
                )));
            }
            Some(map)
        }
        Some(_) => {
            return Err(McpError::invalid_params(
                "inputResponses must be an object of objects",
            ));
        }
    };
    let state = match params.remove("requestState") {
        None => None,
        Some(Value::String(state)) => Some(state),
        Some(_) => return Err(McpError::invalid_params("requestState must be a string")),
    };
    Ok((responses, state))
}

async fn call_tool(
    registry: &Registry,
    mut params: JsonObject,
    mut ctx: Context,
) -> Result<String, McpError> {
    let name = required_string(&params, "name")?;
    let arguments = match params.remove("arguments") {
        None | Some(Value::Null) => JsonObject::new(),
        Some(Value::Object(arguments)) => arguments,
        Some(_) => return Err(McpError::invalid_params("arguments must be an object")),
    };
    let Some((tool, handler)) = registry.tools.get(&name) else {
        return Err(McpError::invalid_params(format!("Unknown tool: {name}")));
    };
    if let Some(headers) = &ctx.data.receive.headers {
        headers::check_param_headers(headers, tool, &arguments)?;
    }
    let binding = BindingRequest {
        method: "tools/call",
        target: &name,
        arguments: &arguments,
    };
    let gate = state_gate::open(registry, &mut ctx, binding).await?;
    let declared = DeclaredInputs::of(&ctx.data.meta.client_capabilities);
    match handler.call(arguments, ctx).await? {
        Outcome::Complete(result) => finish(registry, result),
        Outcome::InputRequired(ask) => {
            finish_input_required(registry, ask, declared, gate.as_ref())
        }
    }
}

async fn get_prompt(
    registry: &Registry,
    mut params: JsonObject,
    mut ctx: Context,
) -> Result<String, McpError> {
    let name = required_string(&params, "name")?;
    let arguments: BTreeMap<String, String> = match params.remove("arguments") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(arguments)) => arguments
            .into_iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k, s)),
                _ => Err(McpError::invalid_params(format!(
                    "prompt argument {k:?} must be a string"
                ))),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(McpError::invalid_params("arguments must be an object")),
    };
    let Some((prompt, handler)) = registry.prompts.get(&name) else {
        return Err(McpError::invalid_params(format!("Unknown prompt: {name}")));
    };
    let missing: Vec<&str> = prompt
        .arguments
        .iter()
        .flatten()
        .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(McpError::invalid_params(format!(
            "prompt {name:?} is missing required arguments: {}",
            missing.join(", ")
        )));
    }
    let gate = if registry.signer.is_some() {
        let as_json: JsonObject = arguments
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let binding = BindingRequest {
            method: "prompts/get",
            target: &name,
            arguments: &as_json,
        };
        state_gate::open(registry, &mut ctx, binding).await?
    } else {
        None
    };
    let declared = DeclaredInputs::of(&ctx.data.meta.client_capabilities);
    match handler.get(arguments, ctx).await? {
        Outcome::Complete(result) => finish(registry, result),
        Outcome::InputRequired(ask) => {
            finish_input_required(registry, ask, declared, gate.as_ref())
        }
    }
}

async fn read_resource(
    registry: &Registry,
    params: JsonObject,
    mut ctx: Context,
) -> Result<String, McpError> {
    let uri = required_string(&params, "uri")?;
    let fixed = registry.resources.get(&uri).map(|(_, handler)| handler);
    let templated = match fixed {
        Some(_) => None,
        None => registry
            .templates
            .iter()
            .find_map(|(entry, handler)| entry.matcher.matches(&uri).map(|vars| (handler, vars))),
    };
    if fixed.is_none() && templated.is_none() {
        return Err(McpError::ResourceNotFound { uri });
    }
    let no_arguments = JsonObject::new();
    let binding = BindingRequest {
        method: "resources/read",
        target: &uri,
        arguments: &no_arguments,
    };
    let gate = state_gate::open(registry, &mut ctx, binding).await?;
    let declared = DeclaredInputs::of(&ctx.data.meta.client_capabilities);
    let outcome = match (fixed, templated) {
        (Some(handler), _) => handler.read(ctx).await?,
        (None, Some((handler, variables))) => handler.read(uri.clone(), variables, ctx).await?,
        (None, None) => return Err(McpError::ResourceNotFound { uri }),
    };
    match outcome {
        Outcome::Complete(result) if result.contents.is_empty() => {
            Err(McpError::ResourceNotFound { uri })
        }
        Outcome::Complete(result) => finish(registry, result),
        Outcome::InputRequired(ask) => {
            finish_input_required(registry, ask, declared, gate.as_ref())
        }
    }
}

fn discover(registry: &Registry) -> DiscoverResult {
    DiscoverResult {
        result_type: ResultType::Complete,
        supported_versions: SUPPORTED_PROTOCOL_VERSIONS
            .iter()
            .map(|v| (*v).to_owned())
            .collect(),
        capabilities: registry.capabilities.clone(),
        instructions: registry.instructions.clone(),
        ttl_ms: registry.cache.discover.ttl_ms,
        cache_scope: registry.cache.discover.scope,
        meta: None,
    }
}

/// Gives result types uniform access to their `_meta`.
trait ResultMeta: Serialize {
    fn meta_mut(&mut self) -> &mut Option<JsonObject>;
}

macro_rules! result_meta {
    ($($ty:ty),* $(,)?) => {$(
        impl ResultMeta for $ty {
            fn meta_mut(&mut self) -> &mut Option<JsonObject> {
                &mut self.meta
            }
        }
    )*};
}

result_meta!(
    DiscoverResult,
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    crate::schema::CallToolResult,
    crate::schema::GetPromptResult,
    crate::schema::ReadResourceResult,
    crate::schema::CompleteResult,
    InputRequiredResult,
);

/// Adds `serverInfo` to the result's `_meta` and serialises it once.
fn finish<R: ResultMeta>(registry: &Registry, mut result: R) -> Result<String, McpError> {
    if let Some(server_meta) = &registry.result_meta {
        add_server_info(
            server_meta,
            result.meta_mut().get_or_insert_with(JsonObject::new),
        );
    }
    serialise(&result)
}

/// Adds the `serverInfo` entries to a result's `_meta`, keeping any key the
/// handler set itself.
fn add_server_info(server_meta: &JsonObject, meta: &mut JsonObject) {
    for (key, value) in server_meta {
        meta.entry(key.clone()).or_insert_with(|| value.clone());
    }
}

/// A result as compact JSON.
fn serialise<T: Serialize>(result: &T) -> Result<String, McpError> {
    serde_json::to_string(result)
        .map_err(|e| McpError::internal(format!("could not serialise the result: {e}")))
}

/// An extension method's result: an object, given `resultType` and `serverInfo`.
fn finish_custom(registry: &Registry, value: Value) -> Result<String, McpError> {
    let Value::Object(mut object) = value else {
        return Err(McpError::internal(
            "an extension method's result must be a JSON object",
        ));
    };
    object
        .entry("resultType")
        .or_insert_with(|| Value::from(ResultType::Complete.as_str()));
    if let Some(server_meta) = &registry.result_meta
        && let Value::Object(meta) = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(JsonObject::new()))
    {
        add_server_info(server_meta, meta);
    }
    serialise(&object)
}

/// Checks an outgoing input-required result: it must ask for something or
/// carry state, its state must verify under the request's binding, and it
/// may ask only for what the client declared it can do.
fn finish_input_required(
    registry: &Registry,
    ask: InputRequiredResult,
    declared: DeclaredInputs,
    gate: Option<&state_gate::Gate>,
) -> Result<String, McpError> {
    if ask.input_requests.is_none() && ask.request_state.is_none() {
        return Err(McpError::internal(
            "a handler returned an input_required result with neither inputRequests nor requestState",
        ));
    }
    state_gate::check_outgoing(gate, &ask)?;
    let missing = missing_capabilities(
        ask.input_requests.iter().flatten().map(|(_, r)| r),
        declared,
    );
    if let Some(required) = missing {
        return Err(McpError::MissingClientCapability {
            required: Box::new(required),
        });
    }
    finish(registry, ask)
}

/// Which kinds of input the client declared it can give: all the check of
/// an outgoing `input_required` result needs, taken before the request's
/// context moves into the handler (a copy, not a clone of the capabilities).
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
pub(crate) fn missing_capabilities<'a>(
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

fn no_cursor(params: &JsonObject) -> Result<(), McpError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(McpError::invalid_params(
            "invalid cursor: this server returns every item in one page",
        )),
    }
}

fn required_string(params: &JsonObject, key: &str) -> Result<String, McpError> {
    match params.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(McpError::invalid_params(format!(
            "params.{key} must be a string"
        ))),
        None => Err(McpError::invalid_params(format!(
            "params.{key} is required"
        ))),
    }
}

fn invalid_meta(detail: impl Into<String>) -> McpError {
    McpError::InvalidMeta {
        detail: detail.into(),
    }
}

fn not_found(method: &str) -> McpError {
    McpError::MethodNotFound {
        method: method.to_owned(),
    }
}
