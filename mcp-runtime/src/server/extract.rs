//! What a macro-generated handler takes as parameters: its arguments as
//! one typed value, the request context, the verified resume state, and
//! shared application state.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::Context;
use crate::schema::{JsonObject, McpError};

/// The parts of a call the parameters are drawn from.
#[derive(Debug)]
pub struct CallParts {
    arguments: JsonObject,
    ctx: Context,
}

impl CallParts {
    /// The parts of one call: its arguments (for a prompt or a resource
    /// template, its string arguments or variables) and its context.
    pub fn new(arguments: JsonObject, ctx: Context) -> Self {
        Self { arguments, ctx }
    }

    /// The parts of a prompt call or a resource-template read, whose
    /// arguments (variables) are strings.
    pub fn from_strings(
        arguments: std::collections::BTreeMap<String, String>,
        ctx: Context,
    ) -> Self {
        let arguments = arguments
            .into_iter()
            .map(|(k, v)| (k, serde_json::Value::String(v)))
            .collect();
        Self { arguments, ctx }
    }

    /// The request context.
    pub fn ctx(&self) -> &Context {
        &self.ctx
    }
}

/// A type a handler can take as a parameter.
///
/// Implemented for every `T: Deserialize + JsonSchema` (the arguments, whose
/// schema becomes the input schema), [`Ctx`], [`Resume<S>`] and [`Shared<T>`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of an MCP handler",
    label = "not a handler parameter",
    note = "a handler takes its arguments as one type deriving `serde::Deserialize` and `schemars::JsonSchema`, and any of: `Ctx` (the request context), `Resume<S>` (the verified resume state), `Shared<T>` (state given to `ServerBuilder::share`)"
)]
pub trait FromCall: Sized {
    /// The JSON Schema this parameter adds to the input schema, if any.
    fn input_schema() -> Option<JsonObject> {
        None
    }

    /// Draws the parameter from the call.
    fn from_call(parts: &mut CallParts) -> Result<Self, McpError>;
}

impl<T: DeserializeOwned + JsonSchema> FromCall for T {
    fn input_schema() -> Option<JsonObject> {
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<T>();
        match schema.to_value() {
            serde_json::Value::Object(object) => Some(object),
            _ => None,
        }
    }

    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        let arguments = serde_json::Value::Object(parts.arguments.clone());
        serde_path_to_error::deserialize(arguments).map_err(|error| {
            let path = error.path().to_string();
            let inner = error.into_inner();
            let message = if path == "." {
                format!("invalid arguments: {inner}")
            } else {
                format!("invalid argument `{path}`: {inner}")
            };
            McpError::invalid_params(message)
        })
    }
}

/// The request context, as a handler parameter.
pub type Ctx = Context;

impl FromCall for Context {
    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        Ok(parts.ctx.clone())
    }
}

/// The verified resume state of a multi-round handler: `None` on a first
/// call, the value the handler minted in the previous round otherwise.
///
/// The state is verified (signature, binding, expiry, single use) before
/// the handler runs and decoded into `S`; a state that verifies but does
/// not decode (minted by an older build, say) is refused with the same
/// `-32602` as a forged one. Needs a `RequestStateSigner` on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume<S>(pub Option<S>);

impl<S> Resume<S> {
    /// The state, `None` on a first call.
    pub fn into_inner(self) -> Option<S> {
        self.0
    }

    /// True on a first call.
    pub fn is_first_call(&self) -> bool {
        self.0.is_none()
    }
}

impl<S: DeserializeOwned> FromCall for Resume<S> {
    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        parts.ctx.state::<S>().map(Resume)
    }
}

/// Application state registered with `ServerBuilder::share`, as a handler
/// parameter.
#[derive(Debug)]
pub struct Shared<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> std::ops::Deref for Shared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Send + Sync + 'static> FromCall for Shared<T> {
    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        parts.ctx.shared::<T>().map(Shared).ok_or_else(|| {
            McpError::internal(format!(
                "a handler takes Shared<{}> but no such value was given to ServerBuilder::share",
                std::any::type_name::<T>()
            ))
        })
    }
}
