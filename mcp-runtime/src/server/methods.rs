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
use super::{MethodHandler, calls, legacy, lists, subscriptions, tasks};
use crate::BoxFuture;
use crate::schema::request_methods::{
    COMPLETION_COMPLETE, INITIALIZE, LOGGING_SET_LEVEL, PING, PROMPTS_GET, PROMPTS_LIST,
    RESOURCES_LIST, RESOURCES_READ, RESOURCES_SUBSCRIBE, RESOURCES_TEMPLATES_LIST,
    RESOURCES_UNSUBSCRIBE, SERVER_DISCOVER, SUBSCRIPTIONS_LISTEN, TOOLS_CALL, TOOLS_LIST,
};
use crate::schema::task_methods::{TASKS_CANCEL, TASKS_GET, TASKS_UPDATE};
use crate::schema::{
    JsonObject, ListChangedCapability, McpError, ResourcesCapability, ServerCapabilities,
    TASKS_EXTENSION,
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
    // The tasks extension (SEP-2663). Its removed `tasks/result` and
    // `tasks/list` are in no table: -32601, like any unknown method.
    Method::serve(TASKS_GET, Eras::Modern, Offer::Tasks, tasks::get),
    Method::serve(TASKS_UPDATE, Eras::Modern, Offer::Tasks, tasks::update),
    Method::serve(TASKS_CANCEL, Eras::Modern, Offer::Tasks, tasks::cancel),
    // The 2025 era's methods that 2026-07-28 removed: a 2026-07-28 request
    // naming one gets -32601 (HTTP 404). `initialize` opens a session, so
    // dispatch answers it itself.
    Method::reserved(INITIALIZE),
    Method::serve(PING, Eras::Legacy, Offer::Always, legacy::ping),
    Method::serve(
        LOGGING_SET_LEVEL,
        Eras::Legacy,
        Offer::Session,
        legacy::set_level,
    ),
    Method::serve(
        RESOURCES_SUBSCRIBE,
        Eras::Legacy,
        Offer::Subscriptions,
        legacy::subscribe,
    ),
    Method::serve(
        RESOURCES_UNSUBSCRIBE,
        Eras::Legacy,
        Offer::Subscriptions,
        legacy::unsubscribe,
    ),
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
    /// A tool that may run as a task (the tasks extension).
    Tasks,
    /// A 2025-era session (its log level is the session's).
    Session,
    /// A 2025-era session, and a resource or resource template.
    Subscriptions,
}

/// One row of the table.
pub(crate) struct Method {
    name: &'static str,
    eras: Eras,
    offer: Offer,
    /// `None`: reserved, answered by dispatch itself (`initialize`).
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

    const fn reserved(name: &'static str) -> Self {
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

/// The era of a request being routed, as dispatch decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asked {
    /// A 2026-07-28 request.
    Modern,
    /// A 2025-era request, in a session or not.
    Legacy {
        /// Whether it belongs to a session.
        session: bool,
    },
}

/// Resolves a request's method: a row of the table of the request's era
/// that this server offers, or an extension method (of either era).
/// Anything else, such as a method of the other era only, is `-32601`.
pub(crate) fn route(registry: &Registry, method: &str, asked: Asked) -> Result<Route, McpError> {
    match METHODS.iter().find(|row| row.name == method) {
        Some(row) => match (row.eras, asked, row.serve) {
            (Eras::Modern | Eras::Both, Asked::Modern, Some(serve))
            | (Eras::Legacy | Eras::Both, Asked::Legacy { .. }, Some(serve))
                if offers(registry, row.offer, asked) =>
            {
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

/// Whether the server offers what `offer` asks for, to a request of `asked`.
fn offers(registry: &Registry, offer: Offer, asked: Asked) -> bool {
    let session = asked == Asked::Legacy { session: true };
    match offer {
        Offer::Always => true,
        Offer::Tools => !registry.tools.is_empty(),
        Offer::Prompts => !registry.prompts.is_empty(),
        Offer::Resources => has_resources(registry),
        Offer::Completions => registry.completion.is_some(),
        Offer::Tasks => registry
            .tools
            .values()
            .any(|(_, handler)| handler.task_support() != super::TaskSupport::Forbidden),
        Offer::Session => session,
        Offer::Subscriptions => session && has_resources(registry),
    }
}

fn has_resources(registry: &Registry) -> bool {
    !registry.resources.is_empty() || !registry.templates.is_empty()
}

/// The capabilities `server/discover` advertises: one for each kind of
/// method the server offers. Every server serves `subscriptions/listen`,
/// so lists are advertised as `listChanged` and resources as `subscribe`.
pub(crate) fn capabilities(registry: &Registry) -> ServerCapabilities {
    let list_changed = || ListChangedCapability {
        list_changed: Some(true),
    };
    let asked = Asked::Modern;
    ServerCapabilities {
        tools: offers(registry, Offer::Tools, asked).then(list_changed),
        prompts: offers(registry, Offer::Prompts, asked).then(list_changed),
        resources: offers(registry, Offer::Resources, asked).then_some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
        }),
        completions: offers(registry, Offer::Completions, asked).then(JsonObject::new),
        extensions: offers(registry, Offer::Tasks, asked).then(|| {
            let mut extensions = JsonObject::new();
            extensions.insert(TASKS_EXTENSION.to_owned(), JsonObject::new().into());
            extensions
        }),
        ..ServerCapabilities::default()
    }
}

/// The capabilities `initialize` answers a 2025-era client with: one for
/// each kind of method the server offers it. In a session, list changes
/// and resource updates reach the client on the session's stream, and
/// `logging/setLevel` is served; without one, none of that is offered.
pub(crate) fn legacy_capabilities(registry: &Registry, session: bool) -> ServerCapabilities {
    let asked = Asked::Legacy { session };
    let flag = session.then_some(true);
    let list_changed = || ListChangedCapability { list_changed: flag };
    ServerCapabilities {
        tools: offers(registry, Offer::Tools, asked).then(list_changed),
        prompts: offers(registry, Offer::Prompts, asked).then(list_changed),
        resources: offers(registry, Offer::Resources, asked).then_some(ResourcesCapability {
            subscribe: offers(registry, Offer::Subscriptions, asked).then_some(true),
            list_changed: flag,
        }),
        completions: offers(registry, Offer::Completions, asked).then(JsonObject::new),
        logging: offers(registry, Offer::Session, asked).then(JsonObject::new),
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
    fn every_method_but_initialize_has_a_function() {
        for row in METHODS {
            assert_eq!(
                row.serve.is_none(),
                row.name == INITIALIZE,
                "{}: only initialize is answered by dispatch itself",
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
