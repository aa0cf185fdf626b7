//! The methods that run the application's handlers. `tools/call`,
//! `prompts/get` and `resources/read` may ask for input: each takes the
//! round's answers and echoed state, finds its handler, binds the request
//! for the state gate and runs the handler through [`rounds`]; a
//! `tools/call` of a task tool goes to the `tasks` room instead (with the
//! `tasks` feature; without it every call is answered here).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::headers;
use crate::receive_context::ReceiveContext;
use crate::schema::request_methods::{PROMPTS_GET, RESOURCES_READ, TOOLS_CALL};
use crate::schema::{CompleteRequestParams, CompleteResult, JsonObject, McpError};
#[cfg(feature = "tasks")]
use crate::server::handler::TaskSupport;
use crate::server::handler::{Asked, Ctx, MethodHandler, Offer, Outcome, ToolArguments};
use crate::server::round::{Call, Core, RunInput, Shape, rounds};
#[cfg(feature = "tasks")]
use crate::server::tasks::{self, TaskEngine};
use crate::state::BoundArguments;

/// `tools/call`.
pub(crate) async fn call_tool(
    core: &Arc<Core>,
    #[cfg(feature = "tasks")] engine: &Arc<TaskEngine>,
    call: Call,
) -> Result<String, McpError> {
    let Call {
        mut params,
        arguments,
        round_trip,
        mut data,
    } = call;
    Arc::make_mut(&mut data).take_round_trip(round_trip)?;
    let name = take_string(&mut params, "name")?;
    let arguments = ToolArguments::from_sent(arguments)?;
    let Some((tool, handler)) = core.catalog.tools.get(&name) else {
        return Err(McpError::invalid_params(format!("Unknown tool: {name}")));
    };
    require_scopes(handler.required_scopes(), data.receive())?;
    // 2025-era clients send no `Mcp-Param-*` headers.
    if let Some(headers) = &data.receive().headers
        && !data.is_legacy()
    {
        headers::check_param_headers(headers, tool, &arguments)?;
    }
    // The tasks extension: a request that declares it, to a tool that
    // may run as a task, takes the task path; one that does not gets
    // -32021 from a tool that must. Without the `tasks` feature no tool
    // must (`build()` refuses one) and the server does not offer the
    // extension: a request that declares it anyway (the client can take a
    // task; it does not demand one) is answered directly, as a task tool
    // answers a request that does not declare it.
    #[cfg(feature = "tasks")]
    {
        let support = handler.task_support();
        if support != TaskSupport::Forbidden {
            if tasks::declares_tasks(&data.meta().client_capabilities) && !data.is_legacy() {
                let checked = core
                    .gate
                    .check(
                        TOOLS_CALL,
                        &name,
                        BoundArguments::Text(arguments.json()),
                        data.receive(),
                        data.request_state(),
                    )?
                    .into_owned();
                let call = tasks::TaskCall {
                    name: name.clone(),
                    arguments,
                    handler: Arc::clone(handler),
                    support,
                };
                // Boxed: a plain call's future does not carry the task path's.
                return Box::pin(tasks::call_tool(core, engine, call, checked, data)).await;
            }
            if support == TaskSupport::Required {
                return Err(tasks::tasks_required());
            }
        }
    }
    // The binding digests the arguments from their text: no tree.
    let checked = core.gate.check(
        TOOLS_CALL,
        &name,
        BoundArguments::Text(arguments.json()),
        data.receive(),
        data.request_state(),
    )?;
    let handler = Arc::clone(handler);
    let mut arguments = RunInput::new(arguments, data.is_legacy());
    rounds(core, checked, data, move |ctx| {
        let (handler, arguments) = (Arc::clone(&handler), arguments.next());
        Box::pin(async move { handler.call(arguments, ctx).await })
    })
    .await
}

/// `prompts/get`.
pub(crate) async fn get_prompt(core: &Arc<Core>, call: Call) -> Result<String, McpError> {
    let Call {
        mut params,
        round_trip,
        mut data,
        ..
    } = call;
    Arc::make_mut(&mut data).take_round_trip(round_trip)?;
    let name = take_string(&mut params, "name")?;
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
    let Some((prompt, handler)) = core.catalog.prompts.get(&name) else {
        return Err(McpError::invalid_params(format!("Unknown prompt: {name}")));
    };
    require_scopes(handler.required_scopes(), data.receive())?;
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
    let as_json: JsonObject = match core.gate.signs() {
        true => arguments
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
        false => JsonObject::new(),
    };
    let checked = core.gate.check(
        PROMPTS_GET,
        &name,
        BoundArguments::Object(&as_json),
        data.receive(),
        data.request_state(),
    )?;
    drop(as_json);
    let handler = Arc::clone(handler);
    let mut arguments = RunInput::new(arguments, data.is_legacy());
    rounds(core, checked, data, move |ctx| {
        let (handler, arguments) = (Arc::clone(&handler), arguments.next());
        Box::pin(async move { handler.get(arguments, ctx).await })
    })
    .await
}

/// `resources/read`: a resource with a fixed URI first, then the first
/// template that matches. An empty result is "not found", as is no match.
pub(crate) async fn read_resource(core: &Arc<Core>, call: Call) -> Result<String, McpError> {
    let Call {
        mut params,
        round_trip,
        mut data,
        ..
    } = call;
    Arc::make_mut(&mut data).take_round_trip(round_trip)?;
    let uri = take_string(&mut params, "uri")?;
    let catalog = &core.catalog;
    let fixed = catalog.resources.get(&uri).map(|(_, handler)| handler);
    let templated = match fixed {
        Some(_) => None,
        None => catalog
            .templates
            .iter()
            .find_map(|(entry, handler)| entry.matcher.matches(&uri).map(|vars| (handler, vars))),
    };
    if fixed.is_none() && templated.is_none() {
        return Err(McpError::ResourceNotFound { uri });
    }
    let scopes = match (fixed, &templated) {
        (Some(handler), _) => handler.required_scopes(),
        (None, Some((handler, _))) => handler.required_scopes(),
        (None, None) => &[],
    };
    require_scopes(scopes, data.receive())?;
    let checked = core.gate.check(
        RESOURCES_READ,
        &uri,
        BoundArguments::Object(&JsonObject::new()),
        data.receive(),
        data.request_state(),
    )?;
    let fixed = fixed.map(Arc::clone);
    let templated = templated.map(|(handler, variables)| (Arc::clone(handler), variables));
    let owned = uri.clone();
    rounds(core, checked, data, move |ctx| {
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
}

/// `completion/complete`: a prompt, template or argument the server does
/// not know is `-32602` before any handler runs; a known one goes to its own
/// completer, else to the catch-all handler, else gets no values.
pub(crate) async fn complete(core: &Core, call: Call) -> Result<String, McpError> {
    let catalog = &core.catalog;
    if !catalog.offers(Offer::Completions, Asked::Modern) {
        return Err(McpError::MethodNotFound {
            method: call.data.method().to_owned(),
        });
    }
    let shape = Shape::of(call.data.is_legacy());
    let params: CompleteRequestParams = serde_json::from_value(Value::Object(call.params))
        .map_err(|e| McpError::invalid_params(format!("invalid completion params: {e}")))?;
    let target = catalog.completion_target(&params.reference, &params.argument.name)?;
    let handler = catalog
        .completers
        .get(&target)
        .or(catalog.completion.as_ref());
    let result = match handler {
        Some(handler) => {
            handler
                .complete(
                    params.reference,
                    params.argument,
                    params.context,
                    Ctx::from_data(call.data),
                )
                .await?
        }
        None => CompleteResult::new(Vec::new()),
    };
    core.finisher.result(shape, result)
}

/// A method registered with `ServerBuilder::method`. Only the three methods
/// above may ask for input.
pub(crate) async fn extension(
    core: &Core,
    handler: Arc<dyn MethodHandler>,
    call: Call,
) -> Result<String, McpError> {
    let Call {
        mut params,
        round_trip,
        data,
        ..
    } = call;
    // An extension's params are handed over whole.
    round_trip.restore(&mut params);
    let method = data.method().to_owned();
    let shape = Shape::of(data.is_legacy());
    match handler.handle(params, Ctx::from_data(data)).await? {
        Outcome::Complete(value) => core.finisher.extension(shape, value),
        Outcome::InputRequired(_) => Err(McpError::internal(format!(
            "the handler of {method} returned an input_required result, \
             which only tools/call, prompts/get and resources/read may return"
        ))),
    }
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

/// Takes the string `params.<key>` out of `params` (not copied).
fn take_string(params: &mut JsonObject, key: &str) -> Result<String, McpError> {
    match params.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(McpError::invalid_params(format!(
            "params.{key} must be a string"
        ))),
        None => Err(McpError::invalid_params(format!(
            "params.{key} is required"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of what a function of two arguments returns, without
    /// calling it.
    fn returned<A, B, R>(_: impl FnOnce(A, B) -> R) -> usize {
        std::mem::size_of::<R>()
    }

    /// The same, of three arguments.
    #[cfg(feature = "tasks")]
    fn returned3<A, B, C, R>(_: impl FnOnce(A, B, C) -> R) -> usize {
        std::mem::size_of::<R>()
    }

    /// glibc serves blocks of up to 1,032 bytes from a per-thread cache, and
    /// larger ones through its bins (`_int_malloc`, `_int_free`), into memory
    /// the cache has not seen. The method table boxes each call's future on
    /// every request: a rare path awaited inline (a replay guard's claim, a
    /// recorded answer, a task) would grow them past it
    /// (docs/benchmarks.md, "The round opened before its future is made").
    #[test]
    fn a_calls_future_fits_the_allocators_per_thread_cache() {
        const PER_THREAD_CACHE: usize = 1032;
        let prompt = returned(|core: &'static Arc<Core>, call: Call| get_prompt(core, call));
        let resource = returned(|core: &'static Arc<Core>, call: Call| read_resource(core, call));
        #[cfg(feature = "tasks")]
        let tool = returned3(
            |core: &'static Arc<Core>, engine: &'static Arc<TaskEngine>, call: Call| {
                call_tool(core, engine, call)
            },
        );
        #[cfg(not(feature = "tasks"))]
        let tool = returned(|core: &'static Arc<Core>, call: Call| call_tool(core, call));
        for (method, size) in [
            (TOOLS_CALL, tool),
            (PROMPTS_GET, prompt),
            (RESOURCES_READ, resource),
        ] {
            eprintln!("{method}: {size} bytes");
            assert!(
                size <= PER_THREAD_CACHE,
                "the future of {method} is {size} bytes, over {PER_THREAD_CACHE}"
            );
        }
    }
}
