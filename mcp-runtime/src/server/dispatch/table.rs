//! The method table: every JSON-RPC request method the server knows, the
//! protocol era(s) it belongs to, what the server must offer to serve it
//! ([`Offer`]), and the function that serves it.
//!
//! Routing ([`route`]), the answer to a method 2026-07-28 removed
//! (`-32601`, HTTP 404) and the names `ServerBuilder::method` refuses
//! ([`is_reserved`]) all read this one table. A new method is one row
//! here plus the function it names; the functions below hand each room
//! the parts of the server it needs, and nothing else.

use std::borrow::Cow;
use std::future::ready;
use std::sync::Arc;

use super::registry::Registry;
use crate::BoxFuture;
use crate::schema::McpError;
use crate::schema::request_methods::{
    COMPLETION_COMPLETE, INITIALIZE, LOGGING_SET_LEVEL, PING, PROMPTS_GET, PROMPTS_LIST,
    RESOURCES_LIST, RESOURCES_READ, RESOURCES_SUBSCRIBE, RESOURCES_TEMPLATES_LIST,
    RESOURCES_UNSUBSCRIBE, SERVER_DISCOVER, SUBSCRIPTIONS_LISTEN, TOOLS_CALL, TOOLS_LIST,
};
use crate::schema::task_methods::{TASKS_CANCEL, TASKS_GET, TASKS_UPDATE};
use crate::server::handler::{Asked, MethodHandler, Offer};
use crate::server::round::Call;
use crate::server::subscriptions::{self, Sources};
#[cfg(feature = "tasks")]
use crate::server::tasks;
use crate::server::{legacy, methods};

/// The table. Order does not matter; names are unique (a test checks).
const METHODS: &[Method] = &[
    Method::serve(SERVER_DISCOVER, Eras::Modern, Offer::Always, discover),
    Method::serve(TOOLS_LIST, Eras::Both, Offer::Tools, tools_list),
    Method::serve(TOOLS_CALL, Eras::Both, Offer::Tools, tools_call),
    Method::serve(PROMPTS_LIST, Eras::Both, Offer::Prompts, prompts_list),
    Method::serve(PROMPTS_GET, Eras::Both, Offer::Prompts, prompts_get),
    Method::serve(RESOURCES_LIST, Eras::Both, Offer::Resources, resources_list),
    Method::serve(RESOURCES_READ, Eras::Both, Offer::Resources, resources_read),
    Method::serve(
        RESOURCES_TEMPLATES_LIST,
        Eras::Both,
        Offer::Resources,
        templates_list,
    ),
    Method::serve(
        COMPLETION_COMPLETE,
        Eras::Both,
        Offer::Completions,
        complete,
    ),
    Method::serve(SUBSCRIPTIONS_LISTEN, Eras::Modern, Offer::Always, listen),
    // The tasks extension (SEP-2663), with the `tasks` feature: without
    // it these rows are not here, and `tasks/*` is -32601 like any
    // unknown method (so `ServerBuilder::method` may not take the names
    // either way: see `TASK_METHODS`). Its removed `tasks/result` and
    // `tasks/list` are in no table.
    #[cfg(feature = "tasks")]
    Method::serve(TASKS_GET, Eras::Modern, Offer::Tasks, tasks_get),
    #[cfg(feature = "tasks")]
    Method::serve(TASKS_UPDATE, Eras::Modern, Offer::Tasks, tasks_update),
    #[cfg(feature = "tasks")]
    Method::serve(TASKS_CANCEL, Eras::Modern, Offer::Tasks, tasks_cancel),
    // The 2025 era's methods that 2026-07-28 removed: a 2026-07-28 request
    // naming one gets -32601 (HTTP 404). `initialize` opens a session, so
    // dispatch answers it itself.
    Method::reserved(INITIALIZE),
    Method::serve(PING, Eras::Legacy, Offer::Always, ping),
    Method::serve(LOGGING_SET_LEVEL, Eras::Legacy, Offer::Session, set_level),
    Method::serve(
        RESOURCES_SUBSCRIBE,
        Eras::Legacy,
        Offer::Subscriptions,
        subscribe,
    ),
    Method::serve(
        RESOURCES_UNSUBSCRIBE,
        Eras::Legacy,
        Offer::Subscriptions,
        unsubscribe,
    ),
];

/// Serves one method: the serialised result, or the error to answer with.
pub(crate) type Serve = for<'a> fn(&'a Registry, Call) -> Served<'a>;

/// What serving a method comes to.
pub(super) type Served<'a> = BoxFuture<'a, Result<String, McpError>>;

fn discover(r: &Registry, _: Call) -> Served<'_> {
    Box::pin(ready(methods::discover(&r.core, &r.lists)))
}

fn tools_list(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(ready(methods::tools(&r.core, &r.lists, &call)))
}

fn tools_call(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(methods::call_tool(
        &r.core,
        #[cfg(feature = "tasks")]
        &r.tasks,
        call,
    ))
}

fn prompts_list(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(ready(methods::prompts(&r.core, &r.lists, &call)))
}

fn prompts_get(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(methods::get_prompt(&r.core, call))
}

fn resources_list(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(ready(methods::resources(&r.core, &r.lists, &call)))
}

fn resources_read(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(methods::read_resource(&r.core, call))
}

fn templates_list(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(ready(methods::templates(&r.core, &r.lists, &call)))
}

fn complete(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(methods::complete(&r.core, call))
}

fn listen(r: &Registry, call: Call) -> Served<'_> {
    let sources = Sources {
        changes: &r.services.changes,
        closing: &r.closing,
        #[cfg(feature = "tasks")]
        tasks: &r.tasks,
    };
    Box::pin(subscriptions::listen(&r.core, sources, call))
}

#[cfg(feature = "tasks")]
fn tasks_get(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(tasks::get(&r.core, &r.tasks, call))
}

#[cfg(feature = "tasks")]
fn tasks_update(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(tasks::update(&r.core, &r.tasks, call))
}

#[cfg(feature = "tasks")]
fn tasks_cancel(r: &Registry, call: Call) -> Served<'_> {
    Box::pin(tasks::cancel(&r.core, &r.tasks, call))
}

fn ping(_: &Registry, _: Call) -> Served<'_> {
    Box::pin(ready(legacy::ping()))
}

fn set_level(_: &Registry, call: Call) -> Served<'_> {
    Box::pin(ready(legacy::set_level(call.data.session(), &call.params)))
}

fn subscribe(registry: &Registry, call: Call) -> Served<'_> {
    Box::pin(ready(legacy::subscribe(
        call.data.session(),
        &call.params,
        &registry.core.memory,
    )))
}

fn unsubscribe(_: &Registry, call: Call) -> Served<'_> {
    Box::pin(ready(legacy::unsubscribe(
        call.data.session(),
        &call.params,
    )))
}

/// The protocol era(s) a method belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Eras {
    /// 2026-07-28 only (stateless requests carrying `_meta`).
    Modern,
    /// The 2025 era only (`initialize` sessions); removed in 2026-07-28.
    Legacy,
    /// Both.
    Both,
}

/// One row of the table.
struct Method {
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

/// Resolves a request's method: a row of the table of the request's era
/// that this server offers, or an extension method (of either era).
/// Anything else, such as a method of the other era only, is `-32601`.
pub(crate) fn route(registry: &Registry, method: &str, asked: Asked) -> Result<Route, McpError> {
    let catalog = &registry.core.catalog;
    match METHODS.iter().find(|row| row.name == method) {
        Some(row) => match (row.eras, asked, row.serve) {
            (Eras::Modern | Eras::Both, Asked::Modern, Some(serve))
            | (Eras::Legacy | Eras::Both, Asked::Legacy { .. }, Some(serve))
                if catalog.offers(row.offer, asked) =>
            {
                Ok(Route::Core {
                    name: row.name,
                    serve,
                })
            }
            _ => Err(not_found(method)),
        },
        None => catalog
            .methods
            .get(method)
            .cloned()
            .map(Route::Extension)
            .ok_or_else(|| not_found(method)),
    }
}

/// The tasks extension's methods. Reserved with or without the `tasks`
/// feature: without it they are answered -32601, never by an extension
/// method of the same name.
const TASK_METHODS: &[&str] = &[TASKS_GET, TASKS_UPDATE, TASKS_CANCEL];

/// Whether `method` is in the table (of either era), or is one of the
/// tasks extension's: an extension may not take its name.
pub(crate) fn is_reserved(method: &str) -> bool {
    METHODS.iter().any(|row| row.name == method) || TASK_METHODS.contains(&method)
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
        for method in [
            INITIALIZE,
            PING,
            LOGGING_SET_LEVEL,
            TOOLS_CALL,
            TASKS_GET,
            TASKS_UPDATE,
            TASKS_CANCEL,
        ] {
            assert!(is_reserved(method), "{method}");
        }
        assert!(!is_reserved("io.example/frobnicate"));
    }
}
