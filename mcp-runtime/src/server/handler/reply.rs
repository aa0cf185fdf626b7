//! What a macro-generated handler returns, and how it becomes a result.

use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;

use super::{Ask, Outcome};
use crate::schema::{
    CallToolResult, ContentBlock, GetPromptResult, InputRequest, InputRequests, JsonObject,
    McpError, PromptMessage, ReadResourceResult, ResourceContents,
};

/// A handler's answer: done, or "ask these, then resume with this state".
///
/// `S` is the handler's resume-state type; `T` the complete result
/// (`CallToolResult` for tools, `GetPromptResult` for prompts,
/// `ReadResourceResult` for resources).
///
/// ```
/// use mcp_runtime::server::handler::Reply;
/// use mcp_runtime::schema::InputRequest;
///
/// #[derive(serde::Serialize)]
/// enum Step { AwaitingName }
///
/// let ask: Reply<Step> = Reply::ask("name", InputRequest::elicit_url("Sign in first.", "https://example.com/login"))
///     .resume(Step::AwaitingName);
/// let done: Reply<Step> = Reply::text("Hello!");
/// # let _ = (ask, done);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a reply does nothing unless the handler returns it"]
pub enum Reply<S, T = CallToolResult> {
    /// The final result.
    Done(T),
    /// Ask the client for input; it will call again.
    Ask {
        /// What to ask, by key.
        requests: InputRequests,
        /// The state the next round resumes from (signed by the server).
        resume: Option<S>,
        /// Whether to ask before the call becomes a task
        /// ([`Reply::before_task`]).
        before_task: bool,
    },
}

impl<S, T> Reply<S, T> {
    /// The final result.
    pub fn done(result: T) -> Self {
        Self::Done(result)
    }

    /// Asks for one input under `key`.
    pub fn ask(key: impl Into<String>, request: InputRequest) -> Self {
        let mut requests = InputRequests::new();
        requests.insert(key.into(), request);
        Self::Ask {
            requests,
            resume: None,
            before_task: false,
        }
    }

    /// Asks for one more input under `key` (on a `Done` reply this turns it
    /// into an ask).
    pub fn and_ask(self, key: impl Into<String>, request: InputRequest) -> Self {
        match self {
            Self::Ask {
                mut requests,
                resume,
                before_task,
            } => {
                requests.insert(key.into(), request);
                Self::Ask {
                    requests,
                    resume,
                    before_task,
                }
            }
            Self::Done(_) => Self::ask(key, request),
        }
    }

    /// Sets the state the next round resumes from. The runtime serialises
    /// it and, once the handler has returned, signs it bound to this
    /// request and sends it as `requestState` (or, for a 2025-era client
    /// whose rounds the bridge runs, keeps it in process unsigned).
    pub fn resume(self, state: S) -> Self {
        match self {
            Self::Ask {
                requests,
                before_task,
                ..
            } => Self::Ask {
                requests,
                resume: Some(state),
                before_task,
            },
            done => done,
        }
    }

    /// Asks these questions before the call becomes a task (tasks
    /// extension): see [`Ask::before_task`]. Outside tasks it changes
    /// nothing; on a `Done` reply it does nothing.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// #[derive(ElicitForm)]
    /// struct Name {
    ///     /// Whom to greet.
    ///     name: String,
    /// }
    ///
    /// let reply: Reply<()> = Reply::ask("user_name", Name::form("What is your name?")).before_task();
    /// assert!(matches!(reply, Reply::Ask { before_task: true, .. }));
    /// ```
    pub fn before_task(self) -> Self {
        match self {
            Self::Ask {
                requests, resume, ..
            } => Self::Ask {
                requests,
                resume,
                before_task: true,
            },
            done => done,
        }
    }
}

impl<S> Reply<S, CallToolResult> {
    /// A tool result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Done(CallToolResult::text(text))
    }
}

impl<S> Reply<S, GetPromptResult> {
    /// A prompt result with one user message of text (the prompt's
    /// counterpart of [`Reply::text`]).
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::schema::GetPromptResult;
    ///
    /// let reply: Reply<(), GetPromptResult> = Reply::user("Summarise the diff.");
    /// assert_eq!(reply, Reply::Done(GetPromptResult::user("Summarise the diff.")));
    /// ```
    pub fn user(text: impl Into<String>) -> Self {
        Self::Done(GetPromptResult::user(text))
    }
}

impl<S: Serialize, T> Reply<S, T> {
    /// Turns the reply into an outcome; the resume state goes out unsigned
    /// (the state gate signs it once the handler has returned).
    fn into_outcome(self) -> Result<Outcome<T>, McpError> {
        match self {
            Self::Done(result) => Ok(Outcome::Complete(result)),
            Self::Ask {
                requests,
                resume,
                before_task,
            } => {
                let mut ask = Ask::requests(requests);
                ask.before_task = before_task;
                Ok(Outcome::InputRequired(match resume {
                    Some(state) => ask.resume(&state)?,
                    None => ask,
                }))
            }
        }
    }
}

/// A tool's own failure: it becomes a result with `isError: true` (which
/// the model can read and correct), not a JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        Self::new(error.to_string())
    }
}

/// Structured tool output: `structuredContent`, a text block with the same
/// JSON, and an `outputSchema` from `T`'s JSON Schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Json<T>(pub T);

/// What a tool handler may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[tool]`",
    note = "a tool returns `CallToolResult`, `String`, `Json<T>`, `Reply<S>`, or a `Result` of one of these with `ToolError` (a tool failure, `isError: true`) or `McpError` (a protocol error)",
    note = "for another error type, return `Result<T, ToolError>`: `?` turns any `std::error::Error` (`std::io::Error`, ...) into a `ToolError`"
)]
pub trait IntoToolResult {
    /// The tool's output schema, when it returns structured content.
    fn output_schema() -> Option<JsonObject> {
        None
    }

    /// Turns the value into the call's outcome.
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError>;
}

impl IntoToolResult for CallToolResult {
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        Ok(Outcome::Complete(self))
    }
}

impl IntoToolResult for String {
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        Ok(Outcome::Complete(CallToolResult::text(self)))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        Ok(Outcome::Complete(CallToolResult::text(self)))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        Ok(Outcome::Complete(CallToolResult::new(self)))
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn output_schema() -> Option<JsonObject> {
        super::spec::schema_of::<T>()
    }

    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        let value = serde_json::to_value(&self.0).map_err(|e| {
            McpError::internal(format!("could not serialise structured output: {e}"))
        })?;
        let mut result = CallToolResult::text(value.to_string());
        result.structured_content = Some(value);
        Ok(Outcome::Complete(result))
    }
}

impl<S: Serialize> IntoToolResult for Reply<S, CallToolResult> {
    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        self.into_outcome()
    }
}

impl<T: IntoToolResult> IntoToolResult for Result<T, ToolError> {
    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }

    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        match self {
            Ok(value) => value.into_tool_outcome(),
            Err(error) => Ok(Outcome::Complete(CallToolResult::error(error.message))),
        }
    }
}

impl<T: IntoToolResult> IntoToolResult for Result<T, McpError> {
    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }

    fn into_tool_outcome(self) -> Result<Outcome<CallToolResult>, McpError> {
        self?.into_tool_outcome()
    }
}

/// What a prompt handler may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[prompt]`",
    note = "a prompt returns `GetPromptResult`, `Vec<PromptMessage>`, `String` (one user message), `Reply<S, GetPromptResult>`, or a `Result` of one of these with `PromptError` (a refusal, `-32602` with its message) or `McpError`"
)]
pub trait IntoPromptResult {
    /// Turns the value into the call's outcome.
    fn into_prompt_outcome(self) -> Result<Outcome<GetPromptResult>, McpError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_outcome(self) -> Result<Outcome<GetPromptResult>, McpError> {
        Ok(Outcome::Complete(self))
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_outcome(self) -> Result<Outcome<GetPromptResult>, McpError> {
        Ok(Outcome::Complete(GetPromptResult::new(self)))
    }
}

impl IntoPromptResult for String {
    fn into_prompt_outcome(self) -> Result<Outcome<GetPromptResult>, McpError> {
        Ok(Outcome::Complete(GetPromptResult::new(vec![
            PromptMessage::user(self),
        ])))
    }
}

impl<S: Serialize> IntoPromptResult for Reply<S, GetPromptResult> {
    fn into_prompt_outcome(self) -> Result<Outcome<GetPromptResult>, McpError> {
        self.into_outcome()
    }
}

impl<T: IntoPromptResult> IntoPromptResult for Result<T, McpError> {
    fn into_prompt_outcome(self) -> Result<Outcome<GetPromptResult>, McpError> {
        self?.into_prompt_outcome()
    }
}

/// What a resource handler may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[resource]`",
    note = "a resource returns `ReadResourceResult`, `Vec<ResourceContents>`, `ResourceContents`, `String` or `ResourceBody` (contents of the URI read), `Reply<S, ReadResourceResult>`, `Reply<S, ResourceBody>`, or a `Result` of one of these with `ResourceError` (a refusal, `-32602`) or `McpError`"
)]
pub trait IntoResourceResult {
    /// Turns the value into the read's outcome; `uri` is the URI the
    /// client asked for and `mime_type` the one the resource declares, for
    /// results that do not name them.
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError>;
}

impl IntoResourceResult for ReadResourceResult {
    fn into_resource_outcome(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        Ok(Outcome::Complete(self))
    }
}

impl IntoResourceResult for Vec<ResourceContents> {
    fn into_resource_outcome(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        Ok(Outcome::Complete(ReadResourceResult::new(self)))
    }
}

impl IntoResourceResult for ResourceContents {
    fn into_resource_outcome(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        Ok(Outcome::Complete(ReadResourceResult::new(vec![self])))
    }
}

impl IntoResourceResult for String {
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        let contents = ResourceContents::Text(crate::schema::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            text: self,
            meta: None,
        });
        Ok(Outcome::Complete(ReadResourceResult::new(vec![contents])))
    }
}

impl<S: Serialize> IntoResourceResult for Reply<S, ReadResourceResult> {
    fn into_resource_outcome(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        self.into_outcome()
    }
}

impl<T: IntoResourceResult> IntoResourceResult for Result<T, McpError> {
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        self?.into_resource_outcome(uri, mime_type)
    }
}
