//! What a `#[completion]` handler takes and returns: the parts of a
//! `completion/complete` request as handler parameters, and the results it
//! may give.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::plumbing::{CallParts, FromCall};
use crate::schema::{
    CompleteResult, CompletionArgument, CompletionContext, CompletionReference, JsonObject,
    McpError,
};

impl CallParts {
    /// The parts of a `completion/complete` request, drawn by the
    /// parameters of a `#[completion]` handler.
    pub fn completion(
        reference: CompletionReference,
        argument: CompletionArgument,
        context: Option<CompletionContext>,
        ctx: super::Ctx,
    ) -> Self {
        let mut parts = JsonObject::new();
        let mut put = |key: &str, value: Result<Value, serde_json::Error>| {
            if let Ok(value) = value {
                parts.insert(key.to_owned(), value);
            }
        };
        put(REFERENCE, serde_json::to_value(reference));
        put(ARGUMENT, serde_json::to_value(argument));
        put(CONTEXT, serde_json::to_value(context.unwrap_or_default()));
        Self::from_object(parts, ctx)
    }

    /// The part under `key`, as a `T`.
    fn completion_part<T: DeserializeOwned>(&self, key: &str) -> Result<T, McpError> {
        let part = self.json_argument(key).cloned().unwrap_or(Value::Null);
        serde_json::from_value(part)
            .map_err(|error| McpError::invalid_params(format!("invalid completion {key}: {error}")))
    }
}

const REFERENCE: &str = "ref";
const ARGUMENT: &str = "argument";
const CONTEXT: &str = "context";

/// What is being completed: a prompt's argument or a template's variable.
impl FromCall for CompletionReference {
    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        parts.completion_part(REFERENCE)
    }
}

/// The argument being completed and what the user typed so far.
impl FromCall for CompletionArgument {
    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        parts.completion_part(ARGUMENT)
    }
}

/// The values of the other arguments (empty when the client sent none).
impl FromCall for CompletionContext {
    fn from_call(parts: &mut CallParts) -> Result<Self, McpError> {
        parts.completion_part(CONTEXT)
    }
}

/// What a `#[completion]` handler may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[completion]`",
    note = "a completion returns `Vec<String>` (the values), `CompleteResult`, or a `Result` of one of these with `McpError`"
)]
pub trait IntoCompleteResult {
    /// Turns the value into the result.
    fn into_complete_result(self) -> Result<CompleteResult, McpError>;
}

impl IntoCompleteResult for CompleteResult {
    fn into_complete_result(self) -> Result<CompleteResult, McpError> {
        Ok(self)
    }
}

impl IntoCompleteResult for Vec<String> {
    /// The values: at most 100 are sent, with `hasMore` set past that.
    fn into_complete_result(self) -> Result<CompleteResult, McpError> {
        Ok(CompleteResult::new(self))
    }
}

impl<T: IntoCompleteResult> IntoCompleteResult for Result<T, McpError> {
    fn into_complete_result(self) -> Result<CompleteResult, McpError> {
        self?.into_complete_result()
    }
}
