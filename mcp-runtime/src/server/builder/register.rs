//! Servers as `impl` blocks, and handlers registered by name: what the
//! macros implement and [`ServerBuilder`] takes.

use std::sync::Arc;

use super::ServerBuilder;

/// A value whose methods are handlers. `#[handlers]` on its `impl` block
/// implements this, and [`ServerBuilder::handlers`] registers every
/// `#[tool]`, `#[prompt]`, `#[resource]` and `#[completion]` method of it
/// at once, each
/// calling the method on the one shared value.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// struct Desk {
///     greeting: String,
/// }
///
/// #[handlers]
/// impl Desk {
///     /// Greets the caller.
///     #[tool]
///     async fn greet(&self) -> String {
///         self.greeting.clone()
///     }
/// }
///
/// let server = Server::builder("desk", "1.0.0")
///     .handlers(Desk { greeting: "Hello!".into() })
///     .build()?;
/// # let _ = server;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no handlers to register",
    note = "put `#[handlers]` on an `impl {Self}` block whose methods carry `#[tool]`, `#[prompt]`, `#[resource]` or `#[completion]`"
)]
pub trait Handlers: Send + Sync + 'static {
    /// Registers each handler method of `this` with `builder`.
    fn register(this: Arc<Self>, builder: ServerBuilder) -> ServerBuilder;
}

/// A handler written as a free function with `#[tool]`, `#[prompt]` or
/// `#[resource]`, registered by its name with
/// [`ServerBuilder::handler`]: `.handler::<refund>()`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a handler function",
    note = "annotate an async fn with `#[tool]`, `#[prompt]`, `#[resource]` or `#[completion]`, then register it with `.handler::<its_name>()`"
)]
pub trait Register {
    /// Registers the handler with `builder`.
    fn register(builder: ServerBuilder) -> ServerBuilder;
}

impl ServerBuilder {
    /// Registers every handler method of `handlers` (an `impl` block with
    /// `#[handlers]`); they share the one value.
    pub fn handlers<H: Handlers>(self, handlers: H) -> Self {
        H::register(Arc::new(handlers), self)
    }

    /// [`Self::handlers`] for a value already shared elsewhere.
    pub fn handlers_shared<H: Handlers>(self, handlers: Arc<H>) -> Self {
        H::register(handlers, self)
    }

    /// Registers the handler function `H` by its name: `.handler::<refund>()`
    /// for an `async fn refund` with `#[tool]` (or `#[prompt]`,
    /// `#[resource]`).
    pub fn handler<H: Register>(self) -> Self {
        H::register(self)
    }
}
