//! The handler API, for handlers written by hand and for what the macros'
//! handlers take and return (the prelude re-exports the everyday part).
//!
//! In the source: what a handler is ([`ToolHandler`] and its kin, which
//! the macros implement), what it receives ([`Ctx`], and the
//! parameters it takes, `extract.rs`), what it returns ([`Reply`],
//! [`Ask`], `refusal.rs`, `resource_body.rs`), the answers it reads
//! (`answers.rs`), the descriptors the macros build (`spec.rs`), and the
//! catalog (`catalog.rs`) of a built server's handlers.
//!
//! It uses `gate` (the verified state a context carries), `legacy` (the
//! session a 2025-era request came in), `notify` and `url_steps`; the
//! rooms that run handlers use it.

mod answers;
mod arguments;
mod ask;
mod catalog;
mod completion;
mod context;
mod extract;
mod inline;
mod refusal;
mod reply;
mod request;
mod resource_body;
mod spec;
mod traits;
mod uri_template;

pub(crate) use answers::{AnswersReader, INPUT_RESPONSES, REQUEST_STATE, RoundAnswers, RoundTrip};
pub use arguments::ToolArguments;
pub use ask::Ask;
pub(crate) use catalog::{
    Asked, Catalog, Completers, Offer, SharedValues, Table, TemplateEntry, Templates, completable,
    listed,
};
pub use completion::{CompletionTarget, IntoCompleteResult};
pub use context::Ctx;
#[allow(deprecated)]
pub use extract::Context;
pub use extract::{Resume, Shared};
pub(crate) use inline::settle;
pub use inline::{Decision, FromAnswer, Heard, Unanswered};
pub use refusal::{PromptError, ResourceError};
pub use reply::{IntoPromptResult, IntoResourceResult, IntoToolResult, Json, Reply, ToolError};
#[cfg(feature = "tasks")]
pub(crate) use request::TaskLink;
pub(crate) use request::{RequestData, Services};
pub use resource_body::ResourceBody;
pub use traits::{
    CompletionHandler, MethodHandler, Outcome, PromptHandler, ResourceHandler,
    ResourceTemplateHandler, TaskSupport, ToolHandler,
};
pub(crate) use uri_template::UriTemplate;

/// What the macros' expansions name, reached only through the hidden
/// `mcp_runtime::__private`.
pub(crate) mod plumbing {
    pub use super::completion::{CompletionParam, completion_param};
    pub use super::extract::{CallParts, FromCall, SharedNeed};
    pub use super::spec::{PromptSpec, ResourceSpec, SchemaFn, ToolSpec};
}
