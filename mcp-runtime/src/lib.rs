//! The runtime of an MCP 2026-07-28 server SDK.
//!
//! By audience:
//!
//! - [`prelude`]: what a handler written with the macros needs
//!   (`use mcp_runtime::prelude::*;`).
//! - [`server`]: building and running a server; [`server::handler`] is the
//!   handler API for handlers written by hand; [`server::legacy`],
//!   `server::tasks` (feature `tasks`) and [`server::url_steps`] are the
//!   features a server turns on, each with its extension points (stores,
//!   settings).
//! - [`transport`]: stdio and streamable HTTP, and what writing another
//!   transport takes.
//! - [`auth`]: the server as an OAuth resource server; [`state`]: the
//!   request-state signer and fleet stores.
//! - [`client`]: a client over HTTP or stdio that fulfils input requests.
//! - [`schema`] and [`form`]: the protocol's wire types and elicitation
//!   forms.
//!
//! ## Features
//!
//! The default features are what a typical server and client need: a
//! server over stdio and streamable HTTP with OAuth, and the client.
//! A server that needs less names what it needs, with
//! `default-features = false`: a stdio server is
//! `features = ["server", "stdio"]`.
//!
//! | Feature | Default | What it brings |
//! |---|---|---|
//! | `server` | yes | [`server`] (the builder, the handler API, dispatch, URL steps, 2025-era sessions), [`state`] (the request-state signer, sealing included), [`auth`]'s [`Caller`](auth::Caller), [`ProtectedResource`](auth::ProtectedResource) and [`TokenVerifier`](auth::TokenVerifier), [`transport`]'s traits, the attributes [`tool`], [`prompt`], [`resource`], [`completion`], [`handlers`], and the server half of [`prelude`]. A server without a transport feature runs in process ([`Server::handle_request`](server::Server::handle_request)). |
//! | `stdio` | yes | The server's stdio transport, `transport::stdio` (with `server`). |
//! | `http` | yes | The server's streamable HTTP transport, `transport::http::HttpTransport` (axum, hyper; with `server`). |
//! | `auth` | yes | OAuth. With `server`: the resource server's token verifiers, `auth::JwtVerifier` (jsonwebtoken) and `auth::IntrospectionVerifier` (RFC 7662, reqwest). With `client`: the client's sign-in, `client::auth` and `ClientBuilder::oauth`. |
//! | `client` | yes | `client::Client` over streamable HTTP (reqwest) and stdio. |
//! | `tasks` | yes | The tasks extension (`io.modelcontextprotocol/tasks`); no dependency of its own. With `server`: the task engine, `server::tasks` (stores, bounds, `ServerBuilder::tasks`), the `tasks/get`, `tasks/update` and `tasks/cancel` methods, task-augmented `tools/call` and watching tasks on `subscriptions/listen`. With `client`: `ClientBuilder::tasks`, `Call::start`, `TaskHandle` and `Started`. |
//! | `redis` | no | A `ReplayGuard` and URL steps on Redis, for fleets, and with `tasks` a task store (turns on `server`). |
//!
//! Always there: [`schema`], [`form`], the derives [`ElicitForm`] and
//! [`ElicitChoice`], [`schemars`] and [`BoxFuture`].
//!
//! Without `tasks`, the extension is absent, not half there: a server
//! answers `tasks/*` with `-32601` as any unknown method (and no extension
//! method may take their names), does not advertise the extension, answers
//! a `tools/call` directly even when the client declares the extension (a
//! tool marked `#[tool(task)]` runs as a plain tool), and leaves
//! `notifications.taskIds` out of a listen stream's acknowledgement, as it
//! does any part of the filter it cannot honour. `build()` refuses a tool
//! that requires a task (`#[tool(task = "required")]`), which could answer
//! nothing else than `-32021`. A client does not declare the extension,
//! and takes a `CreateTaskResult` from a server as an unknown result type
//! (`ClientError::UnknownResultType`). The wire types in [`schema`] and
//! `TaskSupport` stay, so handler code compiles either way.
//!
//! Not separate features, on purpose:
//!
//! - **Sealed request states** (ChaCha20-Poly1305,
//!   `RequestStateSigner::sealed`) come with `server`: opening a token is
//!   one function for both kinds, and the cipher is about ten of the 78
//!   crates of a stdio server with one tool (`bench/weight.sh`).
//! - **The client's wires**: the client always has both, so `client`
//!   brings reqwest whether or not `http` is on. Cargo cannot turn a
//!   dependency on for two features together: were the client's HTTP wire
//!   under `http`, `http` would bring reqwest to every HTTP server, client
//!   or not. The stdio wire costs no dependency.
//!
//! ```no_run
//! use mcp_runtime::schema::{CallToolResult, Tool};
//! use mcp_runtime::BoxFuture;
//! use mcp_runtime::server::Server;
//! use mcp_runtime::server::handler::{Ctx, Outcome, ToolArguments, ToolHandler};
//! use mcp_runtime::schema::McpError;
//!
//! struct Hello;
//!
//! impl ToolHandler for Hello {
//!     fn descriptor(&self) -> Tool {
//!         Tool::new("hello", "Says hello.")
//!     }
//!     fn call(&self, _args: ToolArguments, _ctx: Ctx)
//!         -> BoxFuture<'_, Result<Outcome<CallToolResult>, McpError>> {
//!         Box::pin(async { Ok(Outcome::Complete(CallToolResult::text("Hello!"))) })
//!     }
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder("hello-server", "1.0.0").tool(Hello).build()?;
//! mcp_runtime::transport::stdio::serve(server).await?;
//! # Ok(()) }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "server")]
pub mod auth;
#[cfg(feature = "client")]
pub mod client;
pub mod form;
pub mod schema;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod state;
#[cfg(feature = "server")]
pub mod transport;

#[cfg(feature = "server")]
mod budget;
#[cfg(feature = "server")]
mod hex;
#[cfg(any(feature = "server", feature = "client"))]
mod logged;
#[cfg(feature = "server")]
mod receive_context;
/// The rules the macros check at compile time (crate `mcp-runtime-rules`), checked
/// again here for handlers written by hand: `crate::rules::...`.
use mcp_runtime_rules as rules;

#[doc(hidden)]
pub mod __private;

/// Turns an `async fn` into a tool.
///
/// The function stays as written; beside it a hidden handler type of the
/// same name is emitted: register it by name, `.handler::<deploy>()`, or as
/// a value, `.tool(deploy {})`. The descriptor comes from the function: its
/// name (or `name = "..."`), its doc comment (or `description = "..."`; one
/// of them is required), the input schema of its arguments type, the output
/// schema of a `Json<T>` return, and the annotations `read_only`,
/// `destructive`, `idempotent`, `open_world`. `title = "..."` gives it a
/// display name, `scopes = ["..."]` the scopes a caller's token needs, and
/// `task` (or `task = "required"`) lets (or makes) it run as a task (with
/// the `tasks` feature; without it a `task` tool runs as any other, and
/// `build()` refuses a `task = "required"` one).
///
/// Parameters, in any order: one arguments type (`Deserialize` +
/// `JsonSchema`), [`Ctx`](server::Ctx), [`Resume<S>`](server::Resume)
/// (the verified resume state, which needs
/// [`request_state_signer`](server::ServerBuilder::request_state_signer))
/// and [`Shared<T>`](server::Shared) (a value given to
/// [`share`](server::ServerBuilder::share)); `build()` refuses a server
/// that lacks what they need, even when they are named by a type alias.
/// JSON carries integers exactly only up to 64 bits, so a `u128` or `i128`
/// argument is refused: written in the signature, at compile time; inside
/// the arguments type, by `build()`. Use `u64`/`i64`, or a `String` for
/// larger values.
///
/// Returns: `CallToolResult`, `String`, [`Json<T>`](server::Json),
/// [`Reply<S>`](server::Reply), or a `Result` of these with
/// [`ToolError`](server::ToolError) (the tool failed: `isError: true`) or
/// `McpError` (a protocol error).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct DeployArgs {
///     /// Where to deploy.
///     target: String,
/// }
///
/// #[derive(ElicitForm)]
/// struct Confirm {
///     /// Deploy to production?
///     ok: bool,
/// }
///
/// #[derive(Serialize, Deserialize)]
/// enum Step {
///     AwaitingConfirmation,
/// }
///
/// /// Deploy the current build.
/// #[tool(destructive)]
/// async fn deploy(args: DeployArgs, ctx: Ctx, step: Resume<Step>) -> Result<Reply<Step>, ToolError> {
///     let ask = || Reply::ask("confirm", Confirm::form("Deploy to production?"))
///         .resume(Step::AwaitingConfirmation);
///     match step.into_inner() {
///         None => Ok(ask()),
///         Some(Step::AwaitingConfirmation) => match ctx.answer::<Confirm>("confirm") {
///             Answer::Accept(Confirm { ok: true }) => Ok(Reply::text(format!("Deployed to {}.", args.target))),
///             Answer::Accept(_) | Answer::Decline | Answer::Cancel => Ok(Reply::text("Not deployed.")),
///             Answer::Missing | Answer::Invalid(_) => Ok(ask()),
///         },
///     }
/// }
///
/// let server = Server::builder("deployer", "1.0.0")
///     .tool(deploy {})
///     .request_state_signer(mcp_runtime::state::RequestStateSigner::generate()?)
///     .build()?;
/// # let _ = server;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A tool needs a description, so clients and models know what it does:
///
/// ```compile_fail
/// use mcp_runtime::prelude::*;
///
/// #[tool]
/// async fn undocumented() -> String {
///     "no doc comment".into()
/// }
/// ```
#[cfg(feature = "server")]
pub use mcp_runtime_macros::tool;

/// Turns an `async fn` into a prompt: register it by name,
/// `.handler::<greet>()`, or as a value, `.prompt(greet {})`.
///
/// The properties of its arguments type become the prompt's declared
/// arguments. It takes `name`, `title`, `description` and `scopes` as a
/// [`tool`] does, and the same parameters.
///
/// Returns: `GetPromptResult` (`GetPromptResult::user(text)` for one user
/// message), `Vec<PromptMessage>`, `String` (one user message),
/// or a `Result` of these with [`PromptError`](server::PromptError) (a
/// refusal: `-32602` with its message) or `McpError`. It can ask for input
/// as a tool does, by returning `Reply<S, GetPromptResult>`
/// ([`Reply::user`](server::Reply::user) when done).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct GreetArgs {
///     /// Who to greet.
///     name: String,
/// }
///
/// /// Greets someone.
/// #[prompt]
/// async fn greet(args: GreetArgs) -> String {
///     format!("Say hello to {}.", args.name)
/// }
///
/// let server = Server::builder("greeter", "1.0.0").prompt(greet {}).build()?;
/// # let _ = server;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A handler runs on many requests at once, so it is an `async fn`:
///
/// ```compile_fail
/// use mcp_runtime::prelude::*;
///
/// /// Not async.
/// #[prompt]
/// fn blocking() -> String {
///     String::new()
/// }
/// ```
#[cfg(feature = "server")]
pub use mcp_runtime_macros::prompt;

/// Turns an `async fn` into a resource, `#[resource(uri = "...")]`, or a
/// resource template,
/// `#[resource(uri_template = "test://template/{id}/data")]`, whose
/// variables arrive as its arguments type: register either by name,
/// `.handler::<item>()`, or as a value, `.resource(today {})` or
/// `.resource_template(item {})`. Besides `uri` or `uri_template` it takes
/// `mime_type`, `name`, `title`, `description` and `scopes`; its other
/// parameters are a [`tool`]'s.
///
/// Returns: a `String` or a [`ResourceBody`](server::ResourceBody) (text or
/// bytes; the runtime fills in the URI the client asked for and the
/// declared `mime_type`), a `ReadResourceResult`, or a `Result` of these
/// with [`ResourceError`](server::ResourceError) (a refusal, or
/// `ResourceError::not_found()`) or `McpError`. It can ask for input by
/// returning `Reply<S, ResourceBody>` ([`Reply::resource_text`](server::Reply::resource_text)
/// when done) or `Reply<S, ReadResourceResult>`.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use serde::Deserialize;
///
/// /// The greeting of the day.
/// #[resource(uri = "greeting://today", mime_type = "text/plain")]
/// async fn today() -> String {
///     "Hello!".into()
/// }
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Item {
///     id: String,
/// }
///
/// /// One item's data.
/// #[resource(uri_template = "items://{id}/data", mime_type = "text/plain")]
/// async fn item(vars: Item) -> String {
///     format!("item {}", vars.id)
/// }
///
/// let server = Server::builder("items", "1.0.0")
///     .resource(today {})
///     .resource_template(item {})
///     .build()?;
/// # let _ = server;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A URI with `{variables}` is a template:
///
/// ```compile_fail
/// use mcp_runtime::prelude::*;
///
/// /// Wrong key.
/// #[resource(uri = "items://{id}")]
/// async fn item() -> String {
///     String::new()
/// }
/// ```
#[cfg(feature = "server")]
pub use mcp_runtime_macros::resource;

/// Makes an `impl` block a server's handlers: its `async fn(&self, ...)`
/// methods marked [`#[tool]`](tool), [`#[prompt]`](prompt),
/// [`#[resource(...)]`](resource) or [`#[completion]`](completion) become
/// handlers that call the method on one shared value, registered together
/// with `.handlers(value)` ([`ServerBuilder::handlers`](server::ServerBuilder::handlers)).
/// Parameters and returns are those of the free-function handlers. Without
/// `#[handlers]` on the block, such a method is one compile error saying
/// to add it.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use serde::Deserialize;
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// #[derive(Default)]
/// struct Counter {
///     total: AtomicU64,
/// }
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs {
///     /// How much to add.
///     by: u64,
/// }
///
/// #[handlers]
/// impl Counter {
///     /// Adds to the total and says what it is now.
///     #[tool]
///     async fn add(&self, args: AddArgs) -> String {
///         let total = self.total.fetch_add(args.by, Ordering::SeqCst) + args.by;
///         total.to_string()
///     }
///
///     /// The total so far.
///     #[resource(uri = "counter://total", mime_type = "text/plain")]
///     async fn total(&self) -> String {
///         self.total.load(Ordering::SeqCst).to_string()
///     }
/// }
///
/// let server = Server::builder("counter", "1.0.0")
///     .handlers(Counter::default())
///     .build()?;
/// # let _ = server;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "server")]
pub use mcp_runtime_macros::handlers;

/// Completes arguments (`completion/complete`): `#[completion(prompt =
/// "...", argument = "...")]` or `#[completion(template = "...", argument =
/// "...")]` on an `async fn` declares the completer of one named argument
/// of one prompt or resource template; `#[completion]` alone declares the
/// server's catch-all. Register either with `.handler::<name>()` (or
/// `.completion(name {})`), or as a method of a [`handlers`] block.
///
/// A completer takes, in any order: what the user typed so far (a parameter
/// written `&str` or `String`), [`CompletionContext`](schema::CompletionContext)
/// (the other arguments' values), `Ctx`, `Shared<T>`. It returns
/// `Vec<String>` (the values; at most 100 are sent, with `hasMore` past
/// that), `CompleteResult`, or a `Result` of these with `McpError`.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct TriageArgs {
///     /// The team to hand the ticket to.
///     team: String,
///     /// How urgent it is.
///     urgency: Option<String>,
/// }
///
/// /// Triage a ticket.
/// #[prompt]
/// async fn triage(args: TriageArgs) -> String {
///     format!("Hand it to {}.", args.team)
/// }
///
/// /// The teams that start with what was typed.
/// #[completion(prompt = "triage", argument = "team")]
/// async fn teams(typed: &str) -> Vec<String> {
///     ["billing", "backend", "frontend"]
///         .iter()
///         .filter(|team| team.starts_with(typed))
///         .map(|team| (*team).to_owned())
///         .collect()
/// }
///
/// let server = Server::builder("desk", "1.0.0")
///     .handler::<triage>()
///     .handler::<teams>()
///     .build()?;
/// # let _ = server;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// **A wrong name is never silent.** A template's variables are known to
/// the macro, so `argument` naming none of them is a compile error at that
/// name. In a `#[handlers]` block, a completer completes one of the
/// block's own prompts or templates, so naming one the block does not
/// declare is a compile error too. A prompt's arguments come from its
/// arguments type (serde's names), which the macro cannot read:
/// [`ServerBuilder::build`](server::ServerBuilder::build) refuses a
/// completer whose prompt, template or argument the server does not have,
/// with a [`BuildError`](server::BuildError) naming them and the names that
/// do exist (and two completers of one argument, and two catch-alls).
///
/// **At run time**, a `completion/complete` naming a prompt, template or
/// argument the server does not have is refused with `-32602` (invalid
/// params) naming it, and reaches no handler. A known argument goes to its
/// completer; one without a completer goes to the catch-all, if the server
/// has one; otherwise it gets no values
/// (`{"values": [], "total": 0, "hasMore": false}`).
///
/// **The catch-all** takes [`CompletionReference`](schema::CompletionReference)
/// (what is completed), [`CompletionArgument`](schema::CompletionArgument)
/// (the argument and what was typed so far), `CompletionContext`, `Ctx`,
/// `Shared<T>`. It is consulted only for names the server knows, so it
/// matches on them without guarding against unknown ones:
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::schema::{CompletionArgument, CompletionReference};
///
/// /// Suggests colours.
/// #[completion]
/// async fn colours(reference: CompletionReference, argument: CompletionArgument) -> Vec<String> {
///     let _ = reference;
///     ["red", "green", "blue"]
///         .iter()
///         .filter(|c| c.starts_with(argument.value.as_str()))
///         .map(|c| (*c).to_owned())
///         .collect()
/// }
///
/// let server = Server::builder("colours", "1.0.0").handler::<colours>().build()?;
/// # let _ = server;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A misspelled template variable does not compile:
///
/// ```compile_fail
/// use mcp_runtime::prelude::*;
///
/// /// The teams.
/// #[completion(template = "desk://teams/{team}", argument = "teem")]
/// async fn teams(typed: &str) -> Vec<String> {
///     vec![typed.to_owned()]
/// }
/// ```
#[cfg(feature = "server")]
pub use mcp_runtime_macros::completion;

/// Derives [`form::ElicitForm`] for a struct with named fields: a flat
/// form whose answers decode back into the struct.
///
/// Field types: `String`, `bool`, integers of up to 64 bits (`i8`..`i64`,
/// `u8`..`u64`, `isize`, `usize`), `f32`/`f64`, a fieldless enum
/// deriving [`ElicitChoice`] (single select), a `Vec`/`BTreeSet`/`HashSet`
/// of such an enum (multi select), and `Option` of any of these for a field
/// the user may leave empty. Doc comments become descriptions, and
/// `#[serde(rename...)]` sets wire names. Field options:
/// `#[elicit(title = "..", description = "..", min_length = 1,
/// max_length = 80, format = "email", minimum = 0, maximum = 10,
/// min_items = 1, max_items = 3, default = ..)]`. The runtime checks every
/// declared constraint when it decodes an answer: the client is not
/// trusted.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// #[derive(ElicitChoice)]
/// #[serde(rename_all = "lowercase")]
/// enum Environment {
///     Staging,
///     #[elicit(title = "Production (careful)")]
///     Production,
/// }
///
/// #[derive(ElicitForm)]
/// struct Release {
///     /// Where to release.
///     #[elicit(default = "staging")]
///     environment: Environment,
///     /// How many replicas.
///     #[elicit(minimum = 1, maximum = 12, default = 2)]
///     replicas: u8,
///     /// Why, in a sentence.
///     #[elicit(max_length = 200)]
///     reason: Option<String>,
/// }
///
/// let schema = serde_json::to_value(Release::requested_schema())?;
/// assert_eq!(schema["properties"]["replicas"]["maximum"], 12);
/// assert_eq!(schema["required"], serde_json::json!(["environment", "replicas"]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Forms are flat: a nested struct, a list of strings or a map is refused
/// at compile time, on the field's type.
///
/// ```compile_fail
/// use mcp_runtime::prelude::*;
///
/// #[derive(ElicitForm)]
/// struct Tags {
///     tags: Vec<String>,
/// }
/// ```
pub use mcp_runtime_macros::ElicitForm;

/// Derives [`form::ElicitChoice`] for a fieldless enum: its variants are the
/// values of a single-select field (or, in a `Vec`, a multi-select one).
/// `#[elicit(title = "..")]` on a variant gives it a display title, and
/// `#[serde(rename...)]` sets wire values. See [`ElicitForm`] for an
/// example.
///
/// ```compile_fail
/// use mcp_runtime::prelude::*;
///
/// #[derive(ElicitChoice)]
/// enum Carries {
///     Data(String),
/// }
/// ```
pub use mcp_runtime_macros::ElicitChoice;

/// The JSON Schema generator argument types derive `JsonSchema` with.
///
/// [`prelude`] brings both the derive and this path into scope, and the
/// derive's expansion names `schemars::...` relative to the caller's scope,
/// so `use mcp_runtime::prelude::*;` is all a crate without a `schemars`
/// dependency of its own needs. A crate that depends on `schemars = "1"`
/// itself derives `schemars::JsonSchema` as usual: it is the same crate.
/// Outside the prelude's reach, import the path and the derive together,
/// `use mcp_runtime::schemars::{self, JsonSchema};`, or name the crate on the
/// type: `#[schemars(crate = "mcp_runtime::schemars")]`.
pub use schemars;

/// What a server written with the macros usually needs in scope: the
/// attributes [`#[tool]`](crate::tool), [`#[prompt]`](crate::prompt),
/// [`#[resource]`](crate::resource), [`#[completion]`](crate::completion) and
/// [`#[handlers]`](crate::handlers), the derives and traits
/// [`ElicitForm`] and [`ElicitChoice`],
/// what handlers take and return ([`Ctx`](server::Ctx),
/// [`Resume`](server::Resume), [`Shared`](server::Shared),
/// [`Json`](server::Json), [`Reply`](server::Reply),
/// [`ToolError`](server::ToolError)...), [`Server`](server::Server), and
/// `JsonSchema` with the
/// [`schemars`] path its derive expands to.
pub mod prelude {
    pub use crate::form::{Answer, ElicitChoice, ElicitForm, UrlConsent};
    pub use crate::schema::{CallToolResult, InputRequest, McpError};
    pub use crate::{ElicitChoice, ElicitForm};
    pub use schemars::{self, JsonSchema};

    // The server's side: what handlers take and return.
    #[cfg(feature = "server")]
    pub use crate::server::Server;
    #[cfg(feature = "server")]
    pub use crate::server::handler::{
        Ctx, Decision, Json, PromptError, Reply, ResourceBody, ResourceError, Resume, Shared,
        ToolError, Unanswered,
    };
    #[cfg(feature = "server")]
    pub use crate::server::url_steps::{UrlAnswer, UrlStep};
    #[cfg(feature = "server")]
    pub use crate::{completion, handlers, prompt, resource, tool};
}

/// A boxed, `Send` future: what handler and hook methods return.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;
