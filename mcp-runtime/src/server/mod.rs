//! The server: builder, handler traits, request context, and dispatch.
//!
//! A request walks one path (see `dispatch`): its `_meta` is validated,
//! HTTP headers are compared with the body, the protocol version is
//! checked, the method and its target are resolved, the handler runs, and
//! its result gets `resultType`, caching hints and `serverInfo` before it
//! is serialised once.

mod builder;
mod context;
mod describe;
mod dispatch;
mod extract;
mod handler;
mod headers;
mod incoming;
mod registry;
mod reply;
mod state_gate;
mod subscriptions;
mod uri_template;

pub use crate::BoxFuture;
pub use crate::receive::{Caller, HttpRequestHeaders, ReceiveContext, TransportKind};
pub use builder::{BuildError, ServerBuilder};
pub use context::{Context, Notifier};
pub use describe::{PromptSpec, ResourceSpec, SchemaFn, ToolSpec};
pub use dispatch::Response;
pub use extract::{CallParts, Ctx, FromCall, Resume, Shared};
pub use handler::{
    CompletionHandler, MethodHandler, Outcome, PromptHandler, ResourceHandler,
    ResourceTemplateHandler, ToolHandler,
};
pub use incoming::{Incoming, Request, parse_message};
pub use reply::{IntoPromptResult, IntoResourceResult, IntoToolResult, Json, Reply, ToolError};
pub use subscriptions::{Change, ChangeNotifier};
pub use uri_template::UriTemplate;

use std::sync::Arc;

/// A configured MCP server. Cheap to clone; share it across transports.
#[derive(Clone)]
pub struct Server {
    inner: Arc<registry::Registry>,
}

impl Server {
    /// Starts building a server that identifies itself as `name` `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder::new(name, version)
    }

    /// Announces list and resource changes to open `subscriptions/listen` streams.
    pub fn changes(&self) -> ChangeNotifier {
        self.inner.changes.clone()
    }

    /// Ends every open `subscriptions/listen` stream with its closing
    /// result: what a transport does when it shuts down.
    pub fn close_subscriptions(&self) {
        self.inner.closing.close();
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.inner.info.name)
            .field("tools", &self.inner.tools.len())
            .field("prompts", &self.inner.prompts.len())
            .field("resources", &self.inner.resources.len())
            .field("resource_templates", &self.inner.templates.len())
            .finish()
    }
}
