//! One trait per kind of handler. The macros implement them; hand-written
//! implementations work the same way.

use std::collections::BTreeMap;

use serde_json::Value;

use super::arguments::ToolArguments;
use super::ask::Ask;
use super::completion::CompletionTarget;
use super::context::Ctx;
use super::extract::SharedNeed;
use crate::BoxFuture;
use crate::schema::{
    CallToolResult, CompleteResult, CompletionArgument, CompletionContext, CompletionReference,
    GetPromptResult, JsonObject, McpError, Prompt, ReadResourceResult, Resource, ResourceTemplate,
    Tool,
};

/// What a `tools/call`, `prompts/get` or `resources/read` handler answers:
/// its result, or a request for input followed by a retry.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome<T> {
    /// The final result.
    Complete(T),
    /// Ask the client for input; it will call the same method again. The
    /// runtime signs the ask's resume state (a 2025-era client's bridged
    /// rounds keep it in process) and checks what it asks for against the
    /// client's capabilities.
    InputRequired(Ask),
}

impl<T> Outcome<T> {
    /// Maps the complete result, leaving an input request as it is.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U> {
        match self {
            Self::Complete(value) => Outcome::Complete(f(value)),
            Self::InputRequired(ask) => Outcome::InputRequired(ask),
        }
    }
}

/// Serves one tool.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool handler",
    note = "annotate an async fn with `#[tool]`, or implement `ToolHandler` by hand"
)]
pub trait ToolHandler: Send + Sync + 'static {
    /// The tool's descriptor, read once when the server is built.
    fn descriptor(&self) -> Tool;

    /// Runs the tool. `arguments` is `{}` when the client sent none. A
    /// failure of the tool itself belongs in a result with `isError: true`;
    /// an `Err` is a protocol error (`-32602` for invalid arguments).
    fn call(
        &self,
        arguments: ToolArguments,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>>;

    /// Whether the tool may or must run as a task for a request that
    /// declares the tasks extension (`#[tool(task)]`,
    /// `#[tool(task = "required")]`); never, by default. Without the
    /// `tasks` feature, `Optional` is served as `Forbidden` and
    /// [`ServerBuilder::build`](crate::server::ServerBuilder::build) refuses
    /// `Required`.
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Forbidden
    }

    /// The values its `Shared<T>` parameters need from
    /// `ServerBuilder::share`, checked when the server is built. The macros
    /// fill it in; a hand-written handler may leave it empty.
    fn needs_shared(&self) -> Vec<SharedNeed> {
        Vec::new()
    }

    /// Whether it resumes from a state the server signs (a `Resume<S>`
    /// parameter): `ServerBuilder::build` then refuses a server without
    /// `ServerBuilder::request_state_signer`. The macros fill it in; false
    /// by default.
    fn needs_signer(&self) -> bool {
        false
    }

    /// The scopes a caller's token needs for this handler
    /// (`scopes = [...]` in the macros' attribute), checked before it runs:
    /// a caller without every one of them is refused (over a protected
    /// HTTP endpoint, 403 `insufficient_scope` naming all the scopes the
    /// operation needs). None by default.
    fn required_scopes(&self) -> &[&'static str] {
        &[]
    }
}

/// Serves one prompt.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a prompt handler",
    note = "annotate an async fn with `#[prompt]`, or implement `PromptHandler` by hand"
)]
pub trait PromptHandler: Send + Sync + 'static {
    /// The prompt's descriptor, read once when the server is built.
    /// Required arguments it declares are checked before [`Self::get`] runs.
    fn descriptor(&self) -> Prompt;

    /// Renders the prompt.
    fn get(
        &self,
        arguments: BTreeMap<String, String>,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<GetPromptResult>, McpError>>;

    /// The values its `Shared<T>` parameters need from
    /// `ServerBuilder::share`, checked when the server is built. The macros
    /// fill it in; a hand-written handler may leave it empty.
    fn needs_shared(&self) -> Vec<SharedNeed> {
        Vec::new()
    }

    /// Whether it resumes from a state the server signs (a `Resume<S>`
    /// parameter): `ServerBuilder::build` then refuses a server without
    /// `ServerBuilder::request_state_signer`. The macros fill it in; false
    /// by default.
    fn needs_signer(&self) -> bool {
        false
    }

    /// The scopes a caller's token needs for this handler
    /// (`scopes = [...]` in the macros' attribute), checked before it runs:
    /// a caller without every one of them is refused (over a protected
    /// HTTP endpoint, 403 `insufficient_scope` naming all the scopes the
    /// operation needs). None by default.
    fn required_scopes(&self) -> &[&'static str] {
        &[]
    }
}

/// Serves one resource with a fixed URI.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource handler",
    note = "annotate an async fn with `#[resource(uri = \"...\")]`, or implement `ResourceHandler` by hand"
)]
pub trait ResourceHandler: Send + Sync + 'static {
    /// The resource's descriptor, read once when the server is built.
    fn descriptor(&self) -> Resource;

    /// Reads the resource.
    fn read(&self, ctx: Ctx) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, McpError>>;

    /// The values its `Shared<T>` parameters need from
    /// `ServerBuilder::share`, checked when the server is built. The macros
    /// fill it in; a hand-written handler may leave it empty.
    fn needs_shared(&self) -> Vec<SharedNeed> {
        Vec::new()
    }

    /// Whether it resumes from a state the server signs (a `Resume<S>`
    /// parameter): `ServerBuilder::build` then refuses a server without
    /// `ServerBuilder::request_state_signer`. The macros fill it in; false
    /// by default.
    fn needs_signer(&self) -> bool {
        false
    }

    /// The scopes a caller's token needs for this handler
    /// (`scopes = [...]` in the macros' attribute), checked before it runs:
    /// a caller without every one of them is refused (over a protected
    /// HTTP endpoint, 403 `insufficient_scope` naming all the scopes the
    /// operation needs). None by default.
    fn required_scopes(&self) -> &[&'static str] {
        &[]
    }
}

/// Serves every resource whose URI matches a template.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource template handler",
    note = "annotate an async fn with `#[resource(uri_template = \"...\")]`, or implement `ResourceTemplateHandler` by hand"
)]
pub trait ResourceTemplateHandler: Send + Sync + 'static {
    /// The template's descriptor, read once when the server is built. Its
    /// `uriTemplate` decides which URIs reach [`Self::read`].
    fn descriptor(&self) -> ResourceTemplate;

    /// Reads the resource `uri`; `variables` holds the template's variables.
    fn read(
        &self,
        uri: String,
        variables: BTreeMap<String, String>,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, McpError>>;

    /// The values its `Shared<T>` parameters need from
    /// `ServerBuilder::share`, checked when the server is built. The macros
    /// fill it in; a hand-written handler may leave it empty.
    fn needs_shared(&self) -> Vec<SharedNeed> {
        Vec::new()
    }

    /// Whether it resumes from a state the server signs (a `Resume<S>`
    /// parameter): `ServerBuilder::build` then refuses a server without
    /// `ServerBuilder::request_state_signer`. The macros fill it in; false
    /// by default.
    fn needs_signer(&self) -> bool {
        false
    }

    /// The scopes a caller's token needs for this handler
    /// (`scopes = [...]` in the macros' attribute), checked before it runs:
    /// a caller without every one of them is refused (over a protected
    /// HTTP endpoint, 403 `insufficient_scope` naming all the scopes the
    /// operation needs). None by default.
    fn required_scopes(&self) -> &[&'static str] {
        &[]
    }
}

/// Answers `completion/complete`: for one argument of one prompt or
/// resource template ([`Self::completes`] says which), or for every argument
/// that has no completer of its own (the catch-all, the default).
///
/// Either way, a request naming a prompt, template or argument the server
/// does not have is refused with `-32602` before any handler runs.
pub trait CompletionHandler: Send + Sync + 'static {
    /// Suggests values for `argument` of `reference`.
    fn complete(
        &self,
        reference: CompletionReference,
        argument: CompletionArgument,
        context: Option<CompletionContext>,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<CompleteResult, McpError>>;

    /// The one argument it completes
    /// (`#[completion(prompt = "...", argument = "...")]` or
    /// `#[completion(template = "...", argument = "...")]`), checked against
    /// the server's prompts and templates when the server is built; `None`
    /// (the default) for the server's catch-all completion handler, asked
    /// about every known argument that has no completer of its own.
    fn completes(&self) -> Option<CompletionTarget> {
        None
    }

    /// The values its `Shared<T>` parameters need from
    /// `ServerBuilder::share`, checked when the server is built. The macros
    /// fill it in; a hand-written handler may leave it empty.
    fn needs_shared(&self) -> Vec<SharedNeed> {
        Vec::new()
    }
}

/// Serves a method outside the core set (an extension's method).
///
/// Its result gets `resultType: "complete"` unless it carries its own.
/// Only `tools/call`, `prompts/get` and `resources/read` may ask for input:
/// an [`Outcome::InputRequired`] from here is refused with `-32603`.
pub trait MethodHandler: Send + Sync + 'static {
    /// The method name, e.g. `io.example/frobnicate`.
    fn method(&self) -> &str;

    /// Handles one request; `params` excludes nothing (it holds `_meta`).
    fn handle(
        &self,
        params: JsonObject,
        ctx: Ctx,
    ) -> BoxFuture<'_, Result<Outcome<Value>, McpError>>;
}

/// Whether a tool runs as a task for a request that declares the tasks
/// extension. Requests that do not declare it never get a task, nor does
/// any request to a server built without the `tasks` feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Never a task (the default).
    #[default]
    Forbidden,
    /// A task when the run outlasts the creation window or asks for input
    /// inside; answered directly when it finishes within the window, and
    /// always for requests that do not declare the extension.
    Optional,
    /// Always a task: a request that does not declare the extension gets
    /// `-32021` naming it.
    Required,
}
