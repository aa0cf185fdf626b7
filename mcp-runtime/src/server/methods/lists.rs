//! The methods whose results never change once the server is built:
//! `server/discover` and the four lists, rendered on first use (once per
//! era: the 2025 shape has no `resultType` and no caching hints) and sent
//! as the same JSON afterwards.

use std::sync::OnceLock;

use serde_json::Value;

use crate::schema::{
    CacheHint, DiscoverResult, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, McpError, ResultType, SUPPORTED_PROTOCOL_VERSIONS,
    ServerCapabilities,
};
use crate::server::round::{Call, Core, Shape};

/// Caching hints the server attaches to cacheable results.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CachePolicy {
    /// `server/discover`'s.
    pub(crate) discover: CacheHint,
    /// Every list's.
    pub(crate) lists: CacheHint,
}

/// What discovery says beyond the handlers, and the results rendered so
/// far.
pub(crate) struct Lists {
    /// The capabilities `server/discover` advertises.
    pub(crate) capabilities: ServerCapabilities,
    /// Instructions for the model.
    pub(crate) instructions: Option<String>,
    /// The caching hints.
    pub(crate) cache: CachePolicy,
    rendered: Rendered,
}

impl Lists {
    /// What discovery will say, with nothing rendered yet.
    pub(crate) fn new(
        capabilities: ServerCapabilities,
        instructions: Option<String>,
        cache: CachePolicy,
    ) -> Self {
        Self {
            capabilities,
            instructions,
            cache,
            rendered: Rendered::default(),
        }
    }
}

/// Results that never change once the server is built, as the JSON sent.
#[derive(Default)]
struct Rendered {
    discover: OnceLock<String>,
    /// Each list in the two shapes: 2026-07-28, then 2025.
    tools: [OnceLock<String>; 2],
    prompts: [OnceLock<String>; 2],
    resources: [OnceLock<String>; 2],
    templates: [OnceLock<String>; 2],
}

/// The slot of a list rendered in `shape`.
fn slot(slots: &[OnceLock<String>; 2], shape: Shape) -> &OnceLock<String> {
    match shape {
        Shape::Modern => &slots[0],
        Shape::Legacy => &slots[1],
    }
}

/// The result in `slot`, rendering it the first time.
fn rendered(
    slot: &OnceLock<String>,
    render: impl FnOnce() -> Result<String, McpError>,
) -> Result<String, McpError> {
    if let Some(json) = slot.get() {
        return Ok(json.clone());
    }
    let json = render()?;
    Ok(slot.get_or_init(|| json).clone())
}

/// `server/discover`: versions, capabilities, instructions.
pub(crate) fn discover(core: &Core, lists: &Lists) -> Result<String, McpError> {
    rendered(&lists.rendered.discover, || {
        core.finisher.result(
            Shape::Modern,
            DiscoverResult {
                result_type: ResultType::Complete,
                supported_versions: SUPPORTED_PROTOCOL_VERSIONS
                    .iter()
                    .map(|v| (*v).to_owned())
                    .collect(),
                capabilities: lists.capabilities.clone(),
                instructions: lists.instructions.clone(),
                ttl_ms: lists.cache.discover.ttl_ms,
                cache_scope: lists.cache.discover.scope,
                meta: None,
            },
        )
    })
}

/// `tools/list`: every tool, in one page.
pub(crate) fn tools(core: &Core, lists: &Lists, call: &Call) -> Result<String, McpError> {
    let shape = no_cursor(call)?;
    rendered(slot(&lists.rendered.tools, shape), || {
        core.finisher.result(
            shape,
            ListToolsResult {
                result_type: ResultType::Complete,
                tools: core.catalog.tools.descriptors().cloned().collect(),
                next_cursor: None,
                ttl_ms: lists.cache.lists.ttl_ms,
                cache_scope: lists.cache.lists.scope,
                meta: None,
            },
        )
    })
}

/// `prompts/list`: every prompt, in one page.
pub(crate) fn prompts(core: &Core, lists: &Lists, call: &Call) -> Result<String, McpError> {
    let shape = no_cursor(call)?;
    rendered(slot(&lists.rendered.prompts, shape), || {
        core.finisher.result(
            shape,
            ListPromptsResult {
                result_type: ResultType::Complete,
                prompts: core.catalog.prompts.descriptors().cloned().collect(),
                next_cursor: None,
                ttl_ms: lists.cache.lists.ttl_ms,
                cache_scope: lists.cache.lists.scope,
                meta: None,
            },
        )
    })
}

/// `resources/list`: every resource with a fixed URI, in one page.
pub(crate) fn resources(core: &Core, lists: &Lists, call: &Call) -> Result<String, McpError> {
    let shape = no_cursor(call)?;
    rendered(slot(&lists.rendered.resources, shape), || {
        core.finisher.result(
            shape,
            ListResourcesResult {
                result_type: ResultType::Complete,
                resources: core.catalog.resources.descriptors().cloned().collect(),
                next_cursor: None,
                ttl_ms: lists.cache.lists.ttl_ms,
                cache_scope: lists.cache.lists.scope,
                meta: None,
            },
        )
    })
}

/// `resources/templates/list`: every resource template, in one page.
pub(crate) fn templates(core: &Core, lists: &Lists, call: &Call) -> Result<String, McpError> {
    let shape = no_cursor(call)?;
    rendered(slot(&lists.rendered.templates, shape), || {
        core.finisher.result(
            shape,
            ListResourceTemplatesResult {
                result_type: ResultType::Complete,
                resource_templates: core
                    .catalog
                    .templates
                    .iter()
                    .map(|(t, _)| t.descriptor.clone())
                    .collect(),
                next_cursor: None,
                ttl_ms: lists.cache.lists.ttl_ms,
                cache_scope: lists.cache.lists.scope,
                meta: None,
            },
        )
    })
}

/// Every list fits one page, so any cursor is one this server never gave.
/// The shape the list is written in.
fn no_cursor(call: &Call) -> Result<Shape, McpError> {
    let params: &JsonObject = &call.params;
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(Shape::of(call.data.is_legacy())),
        Some(_) => Err(McpError::invalid_params(
            "invalid cursor: this server returns every item in one page",
        )),
    }
}
