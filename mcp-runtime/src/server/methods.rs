//! The method table: every JSON-RPC request method the server knows, the
//! protocol era(s) it belongs to, what the server must offer to serve it,
//! and the function that serves it.
//!
//! Routing ([`route`]), the capabilities `server/discover` advertises
//! ([`capabilities`]), the answer to a method 2026-07-28 removed (`-32601`,
//! HTTP 404) and the names [`ServerBuilder::method`](super::ServerBuilder::method)
//! refuses ([`is_reserved`]) all read this one table. A new method is one
//! row here plus the function it names.

use std::borrow::Cow;
use std::sync::Arc;

use super::context::RequestData;
use super::incoming::RoundTrip;
use super::registry::Registry;
use super::{MethodHandler, calls, lists, subscriptions};
use crate::BoxFuture;
use crate::schema::request_methods::{
    COMPLETION_COMPLETE, INITIALIZE, LOGGING_SET_LEVEL, PING, PROMPTS_GET, PROMPTS_LIST,
    RESOURCES_LIST, RESOURCES_READ, RESOURCES_SUBSCRIBE, RESOURCES_TEMPLATES_LIST,
    RESOURCES_UNSUBSCRIBE, SERVER_DISCOVER, SUBSCRIPTIONS_LISTEN, TOOLS_CALL, TOOLS_LIST,
};
use crate::schema::{
    JsonObject, ListChangedCapability, McpError, ResourcesCapability, ServerCapabilities,
};

/// The table. Order does not matter; names are unique (a test checks).
const METHODS: &[Method] = &[
    Method::serve(
        SERVER_DISCOVER,
        Eras::Modern,
        Offer::Always,
        lists::discover,
    ),
    Method::serve(TOOLS_LIST, Eras::Both, Offer::Tools, lists::tools),
    Method::serve(TOOLS_CALL, Eras::Both, Offer::Tools, calls::call_tool),
    Method::serve(PROMPTS_LIST, Eras::Both, Offer::Prompts, lists::prompts),
    Method::serve(PROMPTS_GET, Eras::Both, Offer::Prompts, calls::get_prompt),
    Method::serve(
        RESOURCES_LIST,
        Eras::Both,
        Offer::Resources,
        lists::resources,
    ),
    Method::serve(
        RESOURCES_READ,
        Eras::Both,
        Offer::Resources,
        calls::read_resource,
    ),
    Method::serve(
        RESOURCES_TEMPLATES_LIST,
        Eras::Both,
        Offer::Resources,
        lists::templates,
    ),
    Method::serve(
        COMPLETION_COMPLETE,
        Eras::Both,
        Offer::Completions,
        calls::complete,
    ),
    Method::serve(
        SUBSCRIPTIONS_LISTEN,
        Eras::Modern,
        Offer::Always,
        subscriptions::listen,
    ),
    // The 2025 era's methods that 2026-07-28 removed: a 2026-07-28 request
    // naming one gets -32601 (HTTP 404).
    Method::legacy(INITIALIZE),
    Method::legacy(PING),
    Method::legacy(LOGGING_SET_LEVEL),
    Method::legacy(RESOURCES_SUBSCRIBE),
    Method::legacy(RESOURCES_UNSUBSCRIBE),
];

/// One request on its way to the function that serves its method.
pub(crate) struct Call {
    /// The request's params, `_meta` included, the round-trip members not.
    pub(crate) params: JsonObject,
    /// What a retry carries (`inputResponses`, `requestState`), kept apart.
    pub(crate) round_trip: RoundTrip,
    /// Everything else known about the request; it becomes the handler's
    /// [`Context`](super::Context).
    pub(crate) data: RequestData,
}

/// Serves one method: the serialised result, or the error to answer with.
pub(crate) type Serve = for<'a> fn(&'a Registry, Call) -> BoxFuture<'a, Result<String, McpError>>;

/// The protocol era(s) a method belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Eras {
    /// 2026-07-28 only (stateless requests carrying `_meta`).
    Modern,
    /// The 2025 era only (`initialize` sessions); removed in 2026-07-28.
    Legacy,
    /// Both.
    Both,
}

/// What a server must offer for a method to exist on it: `-32601` (HTTP
/// 404) otherwise, and the matching capability is advertised only if it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Offer {
    /// Every server.
    Always,
    /// At least one tool.
    Tools,
    /// At least one prompt.
    Prompts,
    /// At least one resource or resource template.
    Resources,
    /// A completion handler.
    Completions,
}

/// One row of the table.
pub(crate) struct Method {
    name: &'static str,
    eras: Eras,
    offer: Offer,
    /// `None`: listed for its era only; no era this build serves handles it.
    serve: Option<Serve>,
}

impl Method {
    const fn serve(name: &'static str, eras: Eras, offer: Offer, serve: Serve) -> Self {
        Self {
            name,
            eras,
            offer,
            serve: Some(serve),
        }
    }

    const fn legacy(name: &'static str) -> Self {
        Self {
            name,
            eras: Eras::Legacy,
            offer: Offer::Always,
            serve: None,
        }
    }
}

/// Where a request goes.
pub(crate) enum Route {
    /// A method of the table.
    Core {
        /// The method's name, as the table spells it.
        name: &'static str,
        /// Its function.
        serve: Serve,
    },
    /// A method registered with `ServerBuilder::method`.
    Extension(Arc<dyn MethodHandler>),
}

impl Route {
    /// The method's name, borrowed from the table where it is a core method
    /// (copied only for an extension's).
    pub(crate) fn name(&self, requested: &str) -> Cow<'static, str> {
        match self {
            Self::Core { name, .. } => Cow::Borrowed(name),
            Self::Extension(_) => Cow::Owned(requested.to_owned()),
        }
    }
}

/// Resolves a 2026-07-28 request's method: a row of the table this server
/// offers, or an extension method. Anything else, including a method of
/// the 2025 era only, is `-32601`.
pub(crate) fn route(registry: &Registry, method: &str) -> Result<Route, McpError> {
    match METHODS.iter().find(|row| row.name == method) {
        Some(row) => match (row.eras, row.serve) {
            (Eras::Modern | Eras::Both, Some(serve)) if offers(registry, row.offer) => {
                Ok(Route::Core {
                    name: row.name,
                    serve,
                })
            }
            _ => Err(not_found(method)),
        },
        None => registry
            .methods
            .get(method)
            .cloned()
            .map(Route::Extension)
            .ok_or_else(|| not_found(method)),
    }
}

/// Whether `method` is in the table (of either era): an extension may not
/// take its name.
pub(crate) fn is_reserved(method: &str) -> bool {
    METHODS.iter().any(|row| row.name == method)
}

/// Whether the server offers what `offer` asks for.
fn offers(registry: &Registry, offer: Offer) -> bool {
    match offer {
        Offer::Always => true,
        Offer::Tools => !registry.tools.is_empty(),
        Offer::Prompts => !registry.prompts.is_empty(),
        Offer::Resources => !registry.resources.is_empty() || !registry.templates.is_empty(),
        Offer::Completions => registry.completion.is_some(),
    }
}

/// The capabilities `server/discover` advertises: one for each kind of
/// method the server offers. Every server serves `subscriptions/listen`,
/// so lists are advertised as `listChanged` and resources as `subscribe`.
pub(crate) fn capabilities(registry: &Registry) -> ServerCapabilities {
    let list_changed = || ListChangedCapability {
        list_changed: Some(true),
    };
    ServerCapabilities {
        tools: offers(registry, Offer::Tools).then(list_changed),
        prompts: offers(registry, Offer::Prompts).then(list_changed),
        resources: offers(registry, Offer::Resources).then_some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
        }),
        completions: offers(registry, Offer::Completions).then(JsonObject::new),
        ..ServerCapabilities::default()
    }
}

fn not_found(method: &str) -> McpError {
    McpError::MethodNotFound {
        method: method.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_are_unique() {
        for (i, row) in METHODS.iter().enumerate() {
            assert!(
                METHODS[i + 1..].iter().all(|other| other.name != row.name),
                "{} is listed twice",
                row.name
            );
        }
    }

    #[test]
    fn only_methods_of_a_served_era_have_a_function() {
        for row in METHODS {
            assert_eq!(
                row.serve.is_some(),
                row.eras != Eras::Legacy,
                "{}: a 2025-only method has no function until 2025-era sessions are served",
                row.name
            );
        }
    }

    #[test]
    fn removed_methods_are_reserved() {
        for method in [INITIALIZE, PING, LOGGING_SET_LEVEL, TOOLS_CALL] {
            assert!(is_reserved(method), "{method}");
        }
        assert!(!is_reserved("io.example/frobnicate"));
    }
}
