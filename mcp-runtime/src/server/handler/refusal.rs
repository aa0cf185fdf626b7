//! A prompt or resource handler refusing its request: the counterparts of
//! [`ToolError`](super::ToolError) for results that have no `isError`.
//!
//! A tool's failure is part of its result (`isError: true`), for the model
//! to read. `GetPromptResult` and `ReadResourceResult` have no such flag, so
//! a prompt or a resource that will not give its result answers with a
//! JSON-RPC error. The code is `-32602` (Invalid params): the server is
//! fine, it refuses the request as sent (its arguments, its URI, the
//! answers it carried), and that is where the specification files the
//! prompt's and the resource's own refusals (unknown prompt, missing
//! arguments, resource not found). `-32603` is for the server's own
//! failures, whose detail this runtime logs and never sends, so a refusal
//! under it would reach the client without its message.

use std::fmt;

use super::{IntoPromptResult, IntoResourceResult, Outcome};
use crate::schema::{GetPromptResult, McpError, ReadResourceResult};

/// A prompt handler's refusal: the client gets the JSON-RPC error `-32602`
/// with this message (there is no `isError` for prompts).
///
/// A handler returns it as `Result<_, PromptError>`. An [`McpError`]
/// converts into it unchanged (so `?` works on the runtime's own calls,
/// such as `ctx.state()`), and back with `McpError::from`. Other errors do
/// not convert on their own, unlike [`ToolError`](super::ToolError): an
/// unexpected failure is the server's (`McpError::internal`, `-32603`,
/// logged), a refusal is a decision with a message for the client.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::schema::GetPromptResult;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Args {
///     /// What to review.
///     language: String,
/// }
///
/// /// A code review prompt.
/// #[prompt]
/// async fn review(args: Args) -> Result<GetPromptResult, PromptError> {
///     if args.language != "rust" {
///         // {"code": -32602, "message": "only Rust code is reviewed here"}
///         return Err(PromptError::new("only Rust code is reviewed here"));
///     }
///     Ok(GetPromptResult::user("Review this Rust code."))
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PromptError {
    error: McpError,
}

impl PromptError {
    /// A refusal with this message, sent as `-32602`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            error: McpError::invalid_params(message),
        }
    }
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for PromptError {}

impl From<McpError> for PromptError {
    fn from(error: McpError) -> Self {
        Self { error }
    }
}

impl From<PromptError> for McpError {
    fn from(refusal: PromptError) -> Self {
        refusal.error
    }
}

impl<T: IntoPromptResult> IntoPromptResult for Result<T, PromptError> {
    fn into_prompt_outcome(self) -> Result<Outcome<GetPromptResult>, McpError> {
        self.map_err(McpError::from)?.into_prompt_outcome()
    }
}

/// A resource handler's refusal: the client gets the JSON-RPC error
/// `-32602` with this message, or, from [`ResourceError::not_found`], the
/// specification's "Resource not found" with `data.uri` set to the URI it
/// asked for (there is no `isError` for resources).
///
/// It converts from and to [`McpError`] as [`PromptError`] does.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::server::handler::ResourceBody;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Vars {
///     id: String,
/// }
///
/// /// An order.
/// #[resource(uri_template = "shop://orders/{id}", mime_type = "application/json")]
/// async fn order(vars: Vars) -> Result<ResourceBody, ResourceError> {
///     match vars.id.as_str() {
///         // {"code": -32602, "message": "Resource not found",
///         //  "data": {"uri": "shop://orders/0"}}
///         "0" => Err(ResourceError::not_found()),
///         // {"code": -32602, "message": "order 13 is archived"}
///         "13" => Err(ResourceError::new("order 13 is archived")),
///         id => Ok(ResourceBody::text(format!(r#"{{"id":"{id}"}}"#))),
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceError {
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// The URI asked for names nothing: its URI is filled in on the way out.
    NotFound,
    /// Any other error, sent as it is.
    Error(McpError),
}

impl ResourceError {
    /// A refusal with this message, sent as `-32602`.
    pub fn new(message: impl Into<String>) -> Self {
        McpError::invalid_params(message).into()
    }

    /// The URI the client asked for names nothing (a template's variables
    /// that match no item, say): `-32602` "Resource not found" with
    /// `data.uri`, as SEP-2164 requires, filled in by the runtime.
    pub fn not_found() -> Self {
        Self {
            kind: Kind::NotFound,
        }
    }

    /// The error sent for a read of `uri` (the URI `not_found` names).
    pub fn into_mcp_error(self, uri: &str) -> McpError {
        match self.kind {
            Kind::NotFound => McpError::ResourceNotFound {
                uri: uri.to_owned(),
            },
            Kind::Error(error) => error,
        }
    }
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::NotFound => f.write_str("Resource not found (-32602)"),
            Kind::Error(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for ResourceError {}

impl From<McpError> for ResourceError {
    fn from(error: McpError) -> Self {
        Self {
            kind: Kind::Error(error),
        }
    }
}

impl<T: IntoResourceResult> IntoResourceResult for Result<T, ResourceError> {
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        self.map_err(|refusal| refusal.into_mcp_error(uri))?
            .into_resource_outcome(uri, mime_type)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::ErrorObject;

    fn prompt_error(result: Result<String, PromptError>) -> ErrorObject {
        match result.into_prompt_outcome() {
            Err(error) => error.to_object(),
            Ok(outcome) => panic!("expected an error, got {outcome:?}"),
        }
    }

    fn resource_error(result: Result<String, ResourceError>, uri: &str) -> ErrorObject {
        match result.into_resource_outcome(uri, None) {
            Err(error) => error.to_object(),
            Ok(outcome) => panic!("expected an error, got {outcome:?}"),
        }
    }

    #[test]
    fn a_prompt_refusal_is_invalid_params_with_its_message() {
        let object = prompt_error(Err(PromptError::new("no such topic")));
        assert_eq!(
            object,
            ErrorObject {
                code: -32602,
                message: "no such topic".into(),
                data: None
            }
        );
        assert_eq!(
            PromptError::new("no such topic").to_string(),
            "no such topic (-32602)"
        );
    }

    #[test]
    fn an_mcp_error_passes_through_unchanged() {
        let object = prompt_error(Err(McpError::InvalidRequestState.into()));
        assert_eq!(object, McpError::InvalidRequestState.to_object());
        let object = resource_error(Err(McpError::internal("disk").into()), "test://x");
        assert_eq!(
            (object.code, object.message.as_str()),
            (-32603, "Internal error")
        );
        assert_eq!(
            McpError::from(PromptError::new("m")),
            McpError::invalid_params("m")
        );
    }

    #[test]
    fn a_resource_refusal_and_not_found_name_the_uri_read() {
        let object = resource_error(Err(ResourceError::new("archived")), "test://o/13");
        assert_eq!((object.code, object.message.as_str()), (-32602, "archived"));
        assert_eq!(object.data, None);
        let object = resource_error(Err(ResourceError::not_found()), "test://o/0");
        assert_eq!(
            object,
            ErrorObject {
                code: -32602,
                message: "Resource not found".into(),
                data: Some(json!({"uri": "test://o/0"})),
            }
        );
    }

    #[test]
    fn ok_values_convert_as_they_would_alone() {
        let ok: Result<String, PromptError> = Ok("hi".into());
        assert_eq!(
            ok.into_prompt_outcome(),
            Ok(Outcome::Complete(GetPromptResult::user("hi")))
        );
        let ok: Result<String, ResourceError> = Ok("hi".into());
        assert!(matches!(
            ok.into_resource_outcome("test://r", Some("text/plain")),
            Ok(Outcome::Complete(result)) if result.contents[0].uri() == "test://r"
        ));
    }
}
