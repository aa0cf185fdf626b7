//! The methods that run the application's handlers. `tools/call`,
//! `prompts/get` and `resources/read` may ask for input: each takes the
//! round's answers and echoed state and runs its handler in [`rounds`],
//! which passes the state gate ([`state_gate::open_round`]) before the handler
//! runs and finishes what it returns ([`finish_outcome`], which signs
//! through [`state_gate::seal`]); for a 2025-era client it bridges the
//! rounds instead ([`bridge::next_round`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::answers::SentAnswers;
use super::bridge::{self, Bridged, Stop};
use super::context::RequestData;
use super::finish::{finish, finish_extension};
use super::incoming::RoundTrip;
use super::input_required::finish_outcome;
use super::methods::Call;
use super::registry::Registry;
use super::state_gate::Opened;
use super::{
    Context, MethodHandler, Outcome, ReceiveContext, TaskSupport, headers, state_gate, tasks,
};
use crate::BoxFuture;
use crate::logged::Wire;
use crate::schema::request_methods::{PROMPTS_GET, RESOURCES_READ, TOOLS_CALL};
use crate::schema::{CompleteRequestParams, JsonObject, McpError};
use crate::state::BindingRequest;

type Served<'a> = BoxFuture<'a, Result<String, McpError>>;

/// `tools/call`.
pub(crate) fn call_tool(registry: &Registry, call: Call) -> Served<'_> {
    Box::pin(async move {
        let Call {
            mut params,
            round_trip,
            mut data,
        } = call;
        take_round_trip(round_trip, &mut data)?;
        let name = required_string(&params, "name")?;
        let arguments = match params.remove("arguments") {
            None | Some(Value::Null) => JsonObject::new(),
            Some(Value::Object(arguments)) => arguments,
            Some(_) => return Err(McpError::invalid_params("arguments must be an object")),
        };
        let Some((tool, handler)) = registry.tools.get(&name) else {
            return Err(McpError::invalid_params(format!("Unknown tool: {name}")));
        };
        require_scopes(handler.required_scopes(), &data.receive)?;
        // 2025-era clients send no `Mcp-Param-*` headers.
        if let Some(headers) = &data.receive.headers
            && !data.legacy
        {
            headers::check_param_headers(headers, tool, &arguments)?;
        }
        let binding = BindingRequest {
            method: TOOLS_CALL,
            target: &name,
            arguments: &arguments,
        };
        // The tasks extension: a request that declares it, to a tool that
        // may run as a task, takes the task path; one that does not gets
        // -32021 from a tool that must.
        let support = handler.task_support();
        if support != TaskSupport::Forbidden {
            if tasks::declares_tasks(&data.meta.client_capabilities) && !data.legacy {
                let meta = match params.get("_meta") {
                    Some(Value::Object(meta)) => meta.clone(),
                    _ => JsonObject::new(),
                };
                let call = tasks::TaskCall {
                    name: name.clone(),
                    arguments: arguments.clone(),
                    handler: Arc::clone(handler),
                    support,
                    meta,
                };
                return tasks::call_tool(registry, &registry.tasks, call, binding, data).await;
            }
            if support == TaskSupport::Required {
                return Err(tasks::tasks_required());
            }
        }
        let (handler, owned) = (Arc::clone(handler), arguments.clone());
        rounds(registry, binding, data, move |ctx| {
            let (handler, arguments) = (Arc::clone(&handler), owned.clone());
            Box::pin(async move { handler.call(arguments, ctx).await })
        })
        .await
    })
}

/// `prompts/get`.
pub(crate) fn get_prompt(registry: &Registry, call: Call) -> Served<'_> {
    Box::pin(async move {
        let Call {
            mut params,
            round_trip,
            mut data,
        } = call;
        take_round_trip(round_trip, &mut data)?;
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
        require_scopes(handler.required_scopes(), &data.receive)?;
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
        // The binding digests arguments as JSON: the strings, as sent
        // (only needed when there is a signer to bind).
        let as_json: JsonObject = match registry.signer {
            Some(_) => arguments
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
            None => JsonObject::new(),
        };
        let binding = BindingRequest {
            method: PROMPTS_GET,
            target: &name,
            arguments: &as_json,
        };
        let handler = Arc::clone(handler);
        rounds(registry, binding, data, move |ctx| {
            let (handler, arguments) = (Arc::clone(&handler), arguments.clone());
            Box::pin(async move { handler.get(arguments, ctx).await })
        })
        .await
    })
}

/// `resources/read`: a resource with a fixed URI first, then the first
/// template that matches. An empty result is "not found", as is no match.
pub(crate) fn read_resource(registry: &Registry, call: Call) -> Served<'_> {
    Box::pin(async move {
        let Call {
            params,
            round_trip,
            mut data,
        } = call;
        take_round_trip(round_trip, &mut data)?;
        let uri = required_string(&params, "uri")?;
        let fixed = registry.resources.get(&uri).map(|(_, handler)| handler);
        let templated = match fixed {
            Some(_) => None,
            None => registry.templates.iter().find_map(|(entry, handler)| {
                entry.matcher.matches(&uri).map(|vars| (handler, vars))
            }),
        };
        if fixed.is_none() && templated.is_none() {
            return Err(McpError::ResourceNotFound { uri });
        }
        let scopes = match (fixed, &templated) {
            (Some(handler), _) => handler.required_scopes(),
            (None, Some((handler, _))) => handler.required_scopes(),
            (None, None) => &[],
        };
        require_scopes(scopes, &data.receive)?;
        let no_arguments = JsonObject::new();
        let binding = BindingRequest {
            method: RESOURCES_READ,
            target: &uri,
            arguments: &no_arguments,
        };
        let fixed = fixed.map(Arc::clone);
        let templated = templated.map(|(handler, variables)| (Arc::clone(handler), variables));
        let owned = uri.clone();
        rounds(registry, binding, data, move |ctx| {
            let uri = owned.clone();
            let (fixed, templated) = (fixed.clone(), templated.clone());
            Box::pin(async move {
                let read = match (fixed, templated) {
                    (Some(handler), _) => handler.read(ctx).await,
                    (None, Some((handler, variables))) => {
                        handler.read(uri.clone(), variables, ctx).await
                    }
                    (None, None) => return Err(McpError::ResourceNotFound { uri }),
                };
                match read? {
                    Outcome::Complete(result) if result.contents.is_empty() => {
                        Err(McpError::ResourceNotFound { uri })
                    }
                    outcome => Ok(outcome),
                }
            })
        })
        .await
    })
}

/// Runs a handler that may ask for input, round by round: the state gate
/// before each run, then what the handler returned finished. A complete
/// result, or an ask to a 2026-07-28 client (its `InputRequiredResult`),
/// ends the request. An ask to a 2025-era client goes through the bridge,
/// which asks the client and hands back the next round's data (the answers
/// and the state to verify) for the handler to run again; when the bridge
/// cannot go on, the request ends saying why ([`Bridged::stuck`]).
async fn rounds<R: Bridged + Send + 'static>(
    registry: &Registry,
    binding: BindingRequest<'_>,
    mut data: RequestData,
    mut run: impl FnMut(Context) -> BoxFuture<'static, Result<Outcome<R>, McpError>> + Send + 'static,
) -> Result<String, McpError> {
    if consumes_its_state(registry, &data) {
        return detached_round(registry, binding, data, run).await;
    }
    let mut round = 0;
    loop {
        let ticket = match state_gate::open_round(registry, binding, &mut data).await? {
            Opened::Run(ticket) => ticket,
            Opened::Replayed(answer) => return answer,
        };
        let (ctx, request) = Context::shared_with(data);
        let outcome = run(ctx).await;
        let ask = match outcome {
            Ok(Outcome::InputRequired(ask)) if request.legacy => {
                // The bridge asks the client itself: no answer goes out to
                // repeat for a duplicate.
                if let Some(ticket) = ticket {
                    ticket.record(None).await;
                }
                ask
            }
            outcome => {
                let answer =
                    outcome.and_then(|outcome| finish_outcome(registry, outcome, &request));
                if let Some(ticket) = ticket {
                    ticket.record(Some(&answer)).await;
                }
                return answer;
            }
        };
        round += 1;
        data = match bridge::next_round(registry, ask, &request, round).await {
            Ok(next) => next,
            Err(Stop::Fault(error)) => return Err(error),
            Err(Stop::Stuck(why)) => {
                tracing::info!(
                    method = %request.method,
                    target = %Wire(binding.target),
                    why = %Wire(&why),
                    "a 2025-era request needing input could not be bridged"
                );
                return finish(registry, R::stuck(why)?);
            }
        };
    }
}

/// Whether this round may consume its state with its answer recorded: a
/// 2026-07-28 retry carrying a state, to a server with single use and the
/// outcome record on.
fn consumes_its_state(registry: &Registry, data: &RequestData) -> bool {
    registry.signer.is_some()
        && registry.replay_guard.is_some()
        && registry.outcomes.on()
        && data.request_state.is_some()
        && !data.legacy
}

/// Runs a round that may consume its state on a task of its own, from the
/// claim to the recorded answer: once the state is claimed, the round runs
/// to its end and its answer is kept even if the client leaves, so a
/// client that retries after losing it gets it again and the handler runs
/// once. `-32603` when the task failed (a panic, logged) or the server is
/// going away.
async fn detached_round<R: Bridged + Send + 'static>(
    registry: &Registry,
    binding: BindingRequest<'_>,
    mut data: RequestData,
    mut run: impl FnMut(Context) -> BoxFuture<'static, Result<Outcome<R>, McpError>> + Send + 'static,
) -> Result<String, McpError> {
    let Some(registry) = registry.this.upgrade() else {
        return Err(McpError::internal("the server is shutting down"));
    };
    let (method, target, arguments) = (
        binding.method.to_owned(),
        binding.target.to_owned(),
        binding.arguments.clone(),
    );
    let round = async move {
        let binding = BindingRequest {
            method: &method,
            target: &target,
            arguments: &arguments,
        };
        let ticket = match state_gate::open_round(&registry, binding, &mut data).await? {
            Opened::Run(ticket) => ticket,
            Opened::Replayed(answer) => return answer,
        };
        let (ctx, request) = Context::shared_with(data);
        let answer = run(ctx)
            .await
            .and_then(|outcome| finish_outcome(&registry, outcome, &request));
        if let Some(ticket) = ticket {
            ticket.record(Some(&answer)).await;
        }
        answer
    };
    // Outside a Tokio runtime (an embedder's own executor), inline.
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return round.await;
    };
    runtime.spawn(round).await.unwrap_or_else(|error| {
        Err(McpError::internal(format!(
            "a round that may consume its requestState failed: {error}"
        )))
    })
}

/// `completion/complete`.
pub(crate) fn complete(registry: &Registry, call: Call) -> Served<'_> {
    Box::pin(async move {
        let Some(handler) = &registry.completion else {
            return Err(McpError::MethodNotFound {
                method: call.data.method.into_owned(),
            });
        };
        let params: CompleteRequestParams = serde_json::from_value(Value::Object(call.params))
            .map_err(|e| McpError::invalid_params(format!("invalid completion params: {e}")))?;
        let result = handler
            .complete(
                params.reference,
                params.argument,
                params.context,
                Context::from_data(call.data),
            )
            .await?;
        finish(registry, result)
    })
}

/// A method registered with `ServerBuilder::method`. Only the three methods
/// above may ask for input.
pub(crate) async fn extension(
    registry: &Registry,
    handler: Arc<dyn MethodHandler>,
    call: Call,
) -> Result<String, McpError> {
    let Call {
        mut params,
        round_trip,
        data,
    } = call;
    // An extension's params are handed over whole.
    round_trip.restore(&mut params);
    let method = data.method.clone();
    match handler.handle(params, Context::from_data(data)).await? {
        Outcome::Complete(value) => finish_extension(registry, value),
        Outcome::InputRequired(_) => Err(McpError::internal(format!(
            "the handler of {method} returned an input_required result, \
             which only tools/call, prompts/get and resources/read may return"
        ))),
    }
}

/// Takes this round's answers and echoed state into the request's data,
/// checking their shapes: an object of objects, and a string.
fn take_round_trip(round_trip: RoundTrip, data: &mut RequestData) -> Result<(), McpError> {
    data.input_responses = round_trip
        .input_responses
        .map(SentAnswers::into_checked)
        .transpose()?;
    data.request_state = match round_trip.request_state {
        None => None,
        Some(Value::String(state)) => Some(state),
        Some(_) => return Err(McpError::invalid_params("requestState must be a string")),
    };
    Ok(())
}

/// Refuses a caller whose token lacks one of `needed`, naming every scope
/// the operation needs (with those every request needs, over a protected
/// endpoint) and where the resource's metadata is. A caller without a
/// token has no scope: a handler that needs some is closed to it.
fn require_scopes(needed: &[&str], receive: &ReceiveContext) -> Result<(), McpError> {
    let granted = receive
        .caller
        .as_deref()
        .is_some_and(|caller| needed.iter().all(|scope| caller.has_scope(scope)));
    if needed.is_empty() || granted {
        return Ok(());
    }
    let (scopes, resource_metadata) = match &receive.protected {
        Some(resource) => (resource.scopes_for(needed), Some(resource.metadata_url())),
        None => (needed.iter().map(|s| (*s).to_owned()).collect(), None),
    };
    Err(McpError::InsufficientScope {
        scopes,
        resource_metadata,
    })
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
