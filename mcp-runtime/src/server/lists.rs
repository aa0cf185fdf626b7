//! The methods whose results never change once the server is built:
//! `server/discover` and the four lists, rendered on first use and sent as
//! the same JSON afterwards.

use std::future::ready;

use serde_json::Value;

use super::finish::finish;
use super::methods::Call;
use super::registry::{Registry, Rendered};
use crate::BoxFuture;
use crate::schema::{
    DiscoverResult, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, McpError, ResultType, SUPPORTED_PROTOCOL_VERSIONS,
};

type Served<'a> = BoxFuture<'a, Result<String, McpError>>;

/// `server/discover`: versions, capabilities, instructions.
pub(crate) fn discover(registry: &Registry, _: Call) -> Served<'_> {
    Box::pin(ready(Rendered::get(&registry.rendered.discover, || {
        finish(
            registry,
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
            },
        )
    })))
}

/// `tools/list`: every tool, in one page.
pub(crate) fn tools(registry: &Registry, call: Call) -> Served<'_> {
    list(&call, &registry.rendered.tools, || {
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

/// `prompts/list`: every prompt, in one page.
pub(crate) fn prompts(registry: &Registry, call: Call) -> Served<'_> {
    list(&call, &registry.rendered.prompts, || {
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

/// `resources/list`: every resource with a fixed URI, in one page.
pub(crate) fn resources(registry: &Registry, call: Call) -> Served<'_> {
    list(&call, &registry.rendered.resources, || {
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

/// `resources/templates/list`: every resource template, in one page.
pub(crate) fn templates(registry: &Registry, call: Call) -> Served<'_> {
    list(&call, &registry.rendered.templates, || {
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

/// A list: refused with a cursor, otherwise the JSON in `slot`, rendered
/// by `render` the first time.
fn list<'a>(
    call: &Call,
    slot: &std::sync::OnceLock<String>,
    render: impl FnOnce() -> Result<String, McpError>,
) -> Served<'a> {
    Box::pin(ready(
        no_cursor(&call.params).and_then(|()| Rendered::get(slot, render)),
    ))
}

/// Every list fits one page, so any cursor is one this server never gave.
fn no_cursor(params: &JsonObject) -> Result<(), McpError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(McpError::invalid_params(
            "invalid cursor: this server returns every item in one page",
        )),
    }
}
