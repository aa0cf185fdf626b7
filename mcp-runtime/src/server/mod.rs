//! The server: builder, handler traits, request context, and dispatch.
//!
//! One request walks one path, file by file:
//!
//! - [`dispatch`](self) (`dispatch.rs`): `_meta`, protocol version and HTTP
//!   header checks, in the specification's order;
//! - `methods.rs`: the method table, which routes the request to the
//!   function that serves it;
//! - `calls.rs` (`tools/call`, `prompts/get`, `resources/read`,
//!   `completion/complete`, extensions) or `lists.rs` (discovery and lists);
//! - `state_gate.rs`: the echoed `requestState` verified before the handler
//!   runs, the next one signed after it returns, and nowhere else;
//! - the handler, through `extract.rs` (its parameters) and `reply.rs` (its
//!   return value);
//! - `input_required.rs`: an [`Ask`] checked and turned into the
//!   `InputRequiredResult` sent;
//! - `finish.rs`: `serverInfo` added, the result serialised once, the
//!   [`Response`].

mod answers;
mod ask;
mod bridge;
mod build_checks;
mod builder;
mod calls;
mod completion;
mod context;
mod dispatch;
mod extract;
mod finish;
mod handler;
mod handler_spec;
mod handlers;
mod headers;
mod incoming;
mod input_required;
mod legacy;
mod lists;
mod methods;
mod notifier;
mod outcomes;
mod refusal;
mod registry;
mod reply;
mod resource_body;
mod session;
mod state_gate;
mod subscriptions;
mod tasks;
mod uri_template;
mod url_steps;

pub use crate::receive_context::{Caller, HttpRequestHeaders, ReceiveContext, TransportKind};
pub use ask::Ask;
pub use builder::{BuildError, ServerBuilder};
pub use completion::IntoCompleteResult;
pub use context::Context;
pub use extract::{CallParts, Ctx, FromCall, Resume, Shared, SharedNeed};
pub use finish::Response;
pub use handler::{
    CompletionHandler, MethodHandler, Outcome, PromptHandler, ResourceHandler,
    ResourceTemplateHandler, ToolHandler,
};
pub use handler_spec::{PromptSpec, ResourceSpec, SchemaFn, ToolSpec};
pub use handlers::{Handlers, Register};
pub use incoming::{ClientResponse, Incoming, Request, parse_message};
pub use legacy::{Bridge, DEFAULT_BRIDGE_ROUND_TIMEOUT, DEFAULT_BRIDGE_ROUNDS, LegacyClients};
pub use notifier::{Notifier, StreamClose};
pub use outcomes::{DEFAULT_DUPLICATE_WAIT, DEFAULT_MAX_OUTCOME_BYTES, Outcomes};
pub use refusal::{PromptError, ResourceError};
pub use reply::{IntoPromptResult, IntoResourceResult, IntoToolResult, Json, Reply, ToolError};
pub use resource_body::ResourceBody;
pub use session::{MAX_SUBSCRIPTIONS, Session, UnknownResponse};
pub use subscriptions::{Change, ChangeNotifier};
pub use tasks::{
    DEFAULT_CANCEL_GRACE, DEFAULT_CREATION_WINDOW, DEFAULT_LEASE, DEFAULT_MAX_LIVE_PER_CALLER,
    DEFAULT_MAX_RUNNING, DEFAULT_POLL_INTERVAL, DEFAULT_TASK_CAPACITY, DEFAULT_TASK_TTL,
    InMemoryTaskStore, KeptState, Lease, MAX_WATCHED_TASKS, TaskRecord, TaskStore, TaskStoreError,
    TaskSupport, Tasks,
};
#[cfg(feature = "redis")]
pub use tasks::{DEFAULT_TASK_KEY_PREFIX, RedisTaskStore};
pub use uri_template::UriTemplate;
pub use url_steps::{
    DEFAULT_URL_STEP_CAPACITY, DEFAULT_URL_STEP_TTL, InMemoryUrlSteps, UrlAnswer, UrlStep,
    UrlStepError, UrlStepStatus, UrlStepStore, UrlSteps,
};
#[cfg(feature = "redis")]
pub use url_steps::{DEFAULT_URL_STEP_KEY_PREFIX, RedisUrlSteps};

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

    /// The URL steps given to `ServerBuilder::url_steps`: the handle the
    /// application's web route marks steps complete through.
    pub fn url_steps(&self) -> Option<&UrlSteps> {
        self.inner.url_steps.as_ref()
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
