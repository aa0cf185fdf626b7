//! The runtime of an MCP 2026-07-28 server SDK.
//!
//! - [`schema`]: the wire types of the protocol revision, and its errors.
//! - [`server`]: the builder, the handler traits, the request context and
//!   the one dispatch path every request walks.
//! - [`transport`]: stdio and streamable HTTP.
//!
//! ```no_run
//! use mcp_runtime::schema::{CallToolResult, Tool};
//! use mcp_runtime::server::{Server, ToolHandler, Context, Outcome, BoxFuture};
//! use mcp_runtime::schema::{JsonObject, McpError};
//!
//! struct Hello;
//!
//! impl ToolHandler for Hello {
//!     fn descriptor(&self) -> Tool {
//!         Tool::new("hello", "Says hello.")
//!     }
//!     fn call(&self, _args: JsonObject, _ctx: Context)
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

pub mod form;
pub mod receive;
pub mod schema;
pub mod server;
pub mod state;
pub mod transport;

#[doc(hidden)]
pub mod __private;

pub use mcp_macros::{ElicitChoice, ElicitForm, prompt, resource, tool};
/// The JSON Schema generator argument types derive `JsonSchema` with; use
/// this re-export (or the same major version) so the traits match.
pub use schemars;

/// What a server written with the macros usually needs in scope.
pub mod prelude {
    pub use crate::form::{Answer, ElicitChoice, ElicitForm};
    pub use crate::schema::{CallToolResult, InputRequest, McpError};
    pub use crate::server::{Ctx, Json, Reply, Resume, Server, Shared, ToolError};
    pub use mcp_macros::{ElicitChoice, ElicitForm, prompt, resource, tool};
}

/// A boxed, `Send` future: what handler and hook methods return.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// The README's examples, compiled as doctests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
