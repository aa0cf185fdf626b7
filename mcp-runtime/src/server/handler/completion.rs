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

    /// What the user typed so far of the argument being completed: the
    /// value a per-argument completer's `&str` or `String` parameter takes.
    /// (It takes `&mut self` as every draw does.)
    pub fn completion_value(&mut self) -> Result<String, McpError> {
        self.completion_part::<CompletionArgument>(ARGUMENT)
            .map(|argument| argument.value)
    }

    /// The part under `key`, as a `T`.
    fn completion_part<T: DeserializeOwned>(&self, key: &str) -> Result<T, McpError> {
        let part = self.json_argument(key).cloned().unwrap_or(Value::Null);
        serde_json::from_value(part)
            .map_err(|error| McpError::invalid_params(format!("invalid completion {key}: {error}")))
    }
}

/// The one argument a per-argument completer completes
/// ([`CompletionHandler::completes`](super::CompletionHandler::completes)):
/// an argument of a prompt, or a variable of a resource template.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CompletionTarget {
    /// An argument of a prompt (`ref/prompt`).
    PromptArgument {
        /// The prompt's name.
        prompt: String,
        /// The argument's name, as `prompts/list` declares it.
        argument: String,
    },
    /// A variable of a resource template (`ref/resource`).
    TemplateVariable {
        /// The URI template, as `resources/templates/list` gives it.
        template: String,
        /// The variable's name, as written between braces in the template.
        variable: String,
    },
}

impl CompletionTarget {
    /// The argument `argument` of the prompt `prompt`.
    pub fn prompt(prompt: impl Into<String>, argument: impl Into<String>) -> Self {
        Self::PromptArgument {
            prompt: prompt.into(),
            argument: argument.into(),
        }
    }

    /// The variable `variable` of the resource template `template`.
    pub fn template(template: impl Into<String>, variable: impl Into<String>) -> Self {
        Self::TemplateVariable {
            template: template.into(),
            variable: variable.into(),
        }
    }

    /// What a request for `argument` of `reference` completes.
    pub(crate) fn of(reference: &CompletionReference, argument: &str) -> Self {
        match reference {
            CompletionReference::Prompt { name, .. } => Self::prompt(name.as_str(), argument),
            CompletionReference::Resource { uri } => Self::template(uri.as_str(), argument),
        }
    }
}

impl std::fmt::Display for CompletionTarget {
    /// As a sentence names it: `argument "team" of prompt "triage"`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::PromptArgument { prompt, argument } => {
                write!(f, "argument {argument:?} of prompt {prompt:?}")
            }
            Self::TemplateVariable { template, variable } => {
                write!(f, "variable {variable:?} of resource template {template:?}")
            }
        }
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

/// What a per-argument `#[completion(prompt | template = "...", argument =
/// "...")]` may take besides what the user typed (a parameter written `&str`
/// or `String`, which the macro recognises by how it is written).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a per-argument `#[completion]`",
    note = "a completer takes what the user typed (a parameter written `&str` or `String`), `CompletionContext`, `CompletionReference`, `CompletionArgument`, `Ctx` or `Shared<T>`"
)]
pub trait CompletionParam: FromCall {}

impl CompletionParam for CompletionReference {}
impl CompletionParam for CompletionArgument {}
impl CompletionParam for CompletionContext {}
impl CompletionParam for super::Ctx {}
impl<T: Send + Sync + 'static> CompletionParam for super::Shared<T> {}

/// Checks, where a per-argument completer's parameter is drawn, that its
/// type is one it may take (spanned on the type, so the error is there).
pub fn completion_param<T: CompletionParam>() {}

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
