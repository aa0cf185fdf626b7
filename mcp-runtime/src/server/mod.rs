//! The server: building one ([`Server::builder`], [`ServerBuilder`]) and
//! running it (hand it to a transport, or call [`Server::handle_request`]).
//! The handler API is in [`handler`]; the features a server turns on are
//! [`legacy`] (2025-era clients), `tasks` (with the `tasks` feature) and
//! [`url_steps`].
//!
//! In the source, the rooms, each a folder whose module doc says what it holds and what
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
//! - `tasks`: the tasks extension (with the `tasks` feature: without it
//!   the room is not compiled, its methods are not in the table, and a
//!   `tools/call` never becomes a task);
//! - `round`: a handler run round by round, its outcome finished, and a
//!   2025-era client's rounds bridged in process;
//! - `handler`: the handler API ([`Ctx`], [`Reply`], [`Ask`], the
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
pub mod handler;
pub mod legacy;
mod methods;
mod notify;
mod round;
mod subscriptions;
#[cfg(feature = "tasks")]
#[cfg_attr(docsrs, doc(cfg(feature = "tasks")))]
pub mod tasks;
pub mod url_steps;

// Building and running a server.
pub use crate::auth::Caller;
pub use crate::budget::{Held, MemoryBudget, MemoryLimits, OverBudget};
pub use builder::{BuildError, Handlers, ServerBuilder};
pub use dispatch::Server;
pub use gate::OutcomeRecord;
pub use notify::{Change, ChangeNotifier};

// What a transport hands the server and gets back; `crate::transport`
// is their documented home, for those who write one.
#[doc(hidden)]
pub use crate::receive_context::{HttpRequestHeaders, ReceiveContext, TransportKind};
#[doc(hidden)]
pub use dispatch::{Incoming, Request, Response, parse_message};
/// The transport's side of a notifier made by [`Notifier::lazy`].
#[cfg(feature = "http")]
pub(crate) use notify::LazyNotes;
#[doc(hidden)]
pub use notify::{Notifier, StreamClose};

/// The macros' plumbing, named only by `mcp_runtime::__private`.
pub(crate) mod plumbing {
    pub use super::builder::Register;
    pub use super::handler::plumbing::*;
}

#[cfg(feature = "tasks")]
#[doc(hidden)]
#[allow(deprecated)]
pub use self::tasks::{
    Allowance, DEFAULT_CANCEL_GRACE, DEFAULT_CREATION_WINDOW, DEFAULT_LEASE,
    DEFAULT_MAX_ANONYMOUS_TASKS, DEFAULT_MAX_KEPT_ARGUMENTS_BYTES, DEFAULT_MAX_KEPT_META_BYTES,
    DEFAULT_MAX_LIVE_PER_CALLER, DEFAULT_MAX_RUNNING, DEFAULT_MAX_TASKS_PER_ANONYMOUS_CLIENT,
    DEFAULT_MAX_TASKS_PER_CALLER, DEFAULT_POLL_INTERVAL, DEFAULT_TASK_CAPACITY, DEFAULT_TASK_TTL,
    InMemoryTaskStore, KeptState, Lease, MAX_WATCHED_TASKS, TaskRecord, TaskStore, TaskStoreError,
    Tasks,
};
#[cfg(all(feature = "redis", feature = "tasks"))]
#[doc(hidden)]
pub use self::tasks::{DEFAULT_TASK_KEY_PREFIX, RedisTaskStore};
#[cfg(feature = "redis")]
#[doc(hidden)]
pub use self::url_steps::{DEFAULT_URL_STEP_KEY_PREFIX, RedisUrlSteps};
/// The paths these items had before the API was grouped by audience, kept
/// compiling for one release; each has one documented home now.
#[doc(hidden)]
#[allow(deprecated)]
pub use self::{
    gate::{DEFAULT_DUPLICATE_WAIT, DEFAULT_MAX_OUTCOME_BYTES, Outcomes},
    handler::{
        Ask, CompletionHandler, Context, Ctx, IntoCompleteResult, IntoPromptResult,
        IntoResourceResult, IntoToolResult, Json, MethodHandler, Outcome, PromptError,
        PromptHandler, Reply, ResourceBody, ResourceError, ResourceHandler,
        ResourceTemplateHandler, Resume, Shared, TaskSupport, ToolError, ToolHandler,
    },
    legacy::{
        Bridge, ClientResponse, DEFAULT_BRIDGE_ROUND_TIMEOUT, DEFAULT_BRIDGE_ROUNDS, LegacyClients,
        MAX_SUBSCRIPTIONS, Session, UnknownResponse,
    },
    plumbing::*,
    url_steps::{
        DEFAULT_URL_STEP_CAPACITY, DEFAULT_URL_STEP_TTL, InMemoryUrlSteps, UrlAnswer, UrlStep,
        UrlStepError, UrlStepStatus, UrlStepStore, UrlSteps,
    },
};
