//! The server: building one, the handler API, and the one request path.
//!
//! The rooms, each a folder whose module doc says what it holds and what
//! it may use; arrows run down this list only:
//!
//! - `builder`: [`ServerBuilder`], which checks everything and makes the
//!   [`Server`];
//! - `dispatch`: [`Server`], a message read, the request's era, the
//!   2026-07-28 checks, and the method table that hands each method's
//!   function the parts of the server it needs;
//! - `methods`: the core methods (`tools/call`, `prompts/get`,
//!   `resources/read`, completion, extensions, discovery and the lists);
//! - `subscriptions`: `subscriptions/listen`;
//! - `tasks`: the tasks extension;
//! - `round`: a handler run round by round, its outcome finished, and a
//!   2025-era client's rounds bridged in process;
//! - `handler`: the handler API ([`Context`], [`Reply`], [`Ask`], the
//!   handler traits) and the catalog of a server's handlers;
//! - `legacy`: the 2025 era (sessions, `initialize`, the bridge's
//!   questions, the 2025 shape of results);
//! - `gate`: the request state, verified before a handler and signed after
//!   it, in one place;
//! - `url_steps`: URL-mode steps the server tracks;
//! - `notify`: what leaves the server outside a response.

mod builder;
mod dispatch;
mod gate;
mod handler;
mod legacy;
mod methods;
mod notify;
mod round;
mod subscriptions;
mod tasks;
mod url_steps;

pub use crate::auth::Caller;
pub use crate::receive_context::{HttpRequestHeaders, ReceiveContext, TransportKind};
pub use builder::{BuildError, Handlers, Register, ServerBuilder};
pub use dispatch::{Incoming, Request, Response, Server, parse_message};
pub use gate::{DEFAULT_DUPLICATE_WAIT, DEFAULT_MAX_OUTCOME_BYTES, Outcomes};
pub use handler::{
    Ask, CallParts, CompletionHandler, Context, Ctx, FromCall, IntoCompleteResult,
    IntoPromptResult, IntoResourceResult, IntoToolResult, Json, MethodHandler, Outcome,
    PromptError, PromptHandler, PromptSpec, Reply, ResourceBody, ResourceError, ResourceHandler,
    ResourceSpec, ResourceTemplateHandler, Resume, SchemaFn, Shared, SharedNeed, TaskSupport,
    ToolError, ToolHandler, ToolSpec, UriTemplate,
};
pub use legacy::{
    Bridge, ClientResponse, DEFAULT_BRIDGE_ROUND_TIMEOUT, DEFAULT_BRIDGE_ROUNDS, LegacyClients,
    MAX_SUBSCRIPTIONS, Session, UnknownResponse,
};
pub use notify::{Change, ChangeNotifier, Notifier, StreamClose};
pub use tasks::{
    DEFAULT_CANCEL_GRACE, DEFAULT_CREATION_WINDOW, DEFAULT_LEASE, DEFAULT_MAX_LIVE_PER_CALLER,
    DEFAULT_MAX_RUNNING, DEFAULT_POLL_INTERVAL, DEFAULT_TASK_CAPACITY, DEFAULT_TASK_TTL,
    InMemoryTaskStore, KeptState, Lease, MAX_WATCHED_TASKS, TaskRecord, TaskStore, TaskStoreError,
    Tasks,
};
#[cfg(feature = "redis")]
pub use tasks::{DEFAULT_TASK_KEY_PREFIX, RedisTaskStore};
pub use url_steps::{
    DEFAULT_URL_STEP_CAPACITY, DEFAULT_URL_STEP_TTL, InMemoryUrlSteps, UrlAnswer, UrlStep,
    UrlStepError, UrlStepStatus, UrlStepStore, UrlSteps,
};
#[cfg(feature = "redis")]
pub use url_steps::{DEFAULT_URL_STEP_KEY_PREFIX, RedisUrlSteps};
