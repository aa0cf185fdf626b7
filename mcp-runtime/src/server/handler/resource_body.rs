//! The contents of the resource being read, without its URI: the runtime
//! knows which URI the client asked for, so a handler need not repeat it.

use base64::Engine as _;
use serde::Serialize;

use super::{IntoResourceResult, Outcome, Reply};
use crate::schema::{
    BlobResourceContents, McpError, ReadResourceResult, ResourceContents, TextResourceContents,
};

/// The contents of the resource being read, without its URI.
///
/// Returned from a `#[resource]` (alone, in a `Result`, or as the result of a
/// [`Reply<S, ResourceBody>`](Reply)), it becomes one `contents` entry whose
/// `uri` is the URI the client asked for (for a template, the URI as
/// requested, not the template) and whose `mimeType` is the one set here,
/// else the one the resource declares.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::server::handler::ResourceBody;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Page {
///     name: String,
/// }
///
/// /// A page of the wiki, as Markdown.
/// #[resource(uri_template = "wiki://pages/{name}", mime_type = "text/markdown")]
/// async fn page(vars: Page) -> ResourceBody {
///     // Read as `wiki://pages/<name>`, with `mimeType: text/markdown`.
///     ResourceBody::text(format!("# {}", vars.name))
/// }
///
/// /// The wiki's logo.
/// #[resource(uri = "wiki://logo")]
/// async fn logo() -> ResourceBody {
///     ResourceBody::blob([0x89, b'P', b'N', b'G']).with_mime_type("image/png")
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceBody {
    data: Data,
    mime_type: Option<String>,
}

/// Text, or bytes already base64-encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Data {
    Text(String),
    Blob(String),
}

impl ResourceBody {
    /// Text contents.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            data: Data::Text(text.into()),
            mime_type: None,
        }
    }

    /// Binary contents; the bytes are base64-encoded for the wire.
    pub fn blob(bytes: impl AsRef<[u8]>) -> Self {
        Self {
            data: Data::Blob(base64::engine::general_purpose::STANDARD.encode(bytes)),
            mime_type: None,
        }
    }

    /// Sets the MIME type, in place of the one the resource declares.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The contents of `uri`: what the runtime does with the body a
    /// `#[resource]` returns, for a hand-written handler to do the same.
    /// `declared_mime_type` applies unless the body sets its own.
    ///
    /// ```
    /// use mcp_runtime::schema::ResourceContents;
    /// use mcp_runtime::server::handler::ResourceBody;
    ///
    /// let contents = ResourceBody::text("hi").into_contents("notes://1", Some("text/plain"));
    /// assert_eq!(contents, ResourceContents::text("notes://1", "text/plain", "hi"));
    /// ```
    pub fn into_contents(
        self,
        uri: impl Into<String>,
        declared_mime_type: Option<&str>,
    ) -> ResourceContents {
        let uri = uri.into();
        let mime_type = self
            .mime_type
            .or_else(|| declared_mime_type.map(str::to_owned));
        match self.data {
            Data::Text(text) => ResourceContents::Text(TextResourceContents {
                uri,
                mime_type,
                text,
                meta: None,
            }),
            Data::Blob(blob) => ResourceContents::Blob(BlobResourceContents {
                uri,
                mime_type,
                blob,
                meta: None,
            }),
        }
    }
}

impl IntoResourceResult for ResourceBody {
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        Ok(Outcome::Complete(ReadResourceResult::new(vec![
            self.into_contents(uri, mime_type),
        ])))
    }
}

impl<S> Reply<S, ResourceBody> {
    /// The resource's contents as text: the runtime fills in the URI the
    /// client asked for and the MIME type the resource declares (the
    /// resource's counterpart of [`Reply::text`] and [`Reply::user`]).
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::server::handler::ResourceBody;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(ElicitForm)]
    /// struct Confirm {
    ///     /// Show the secret notes?
    ///     ok: bool,
    /// }
    ///
    /// #[derive(Serialize, Deserialize)]
    /// enum Step {
    ///     Asked,
    /// }
    ///
    /// /// The secret notes, after a confirmation.
    /// #[resource(uri = "notes://secret", mime_type = "text/plain")]
    /// async fn secret(ctx: Ctx, step: Resume<Step>) -> Reply<Step, ResourceBody> {
    ///     let ask = || Reply::ask("confirm", Confirm::form("Show the secret notes?")).resume(Step::Asked);
    ///     if step.is_first_call() {
    ///         return ask();
    ///     }
    ///     match ctx.answer::<Confirm>("confirm") {
    ///         Answer::Accept(Confirm { ok: true }) => Reply::resource_text("The notes."),
    ///         Answer::Accept(_) | Answer::Decline | Answer::Cancel => Reply::resource_text("Hidden."),
    ///         Answer::Missing | Answer::Invalid(_) => ask(),
    ///     }
    /// }
    /// ```
    pub fn resource_text(text: impl Into<String>) -> Self {
        Self::Done(ResourceBody::text(text))
    }
}

impl<S: Serialize> IntoResourceResult for Reply<S, ResourceBody> {
    fn into_resource_outcome(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Outcome<ReadResourceResult>, McpError> {
        match self {
            Self::Done(body) => body.into_resource_outcome(uri, mime_type),
            Self::Ask {
                requests,
                resume,
                before_task,
            } => Reply::<S, ReadResourceResult>::Ask {
                requests,
                resume,
                before_task,
            }
            .into_resource_outcome(uri, mime_type),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(outcome: Result<Outcome<ReadResourceResult>, McpError>) -> Vec<ResourceContents> {
        match outcome {
            Ok(Outcome::Complete(result)) => result.contents,
            other => panic!("expected a complete result, got {other:?}"),
        }
    }

    #[test]
    fn the_uri_and_the_declared_mime_type_are_filled_in() {
        let contents = complete(
            ResourceBody::text("hello").into_resource_outcome("test://a/1", Some("text/plain")),
        );
        assert_eq!(
            contents,
            vec![ResourceContents::text("test://a/1", "text/plain", "hello")]
        );
    }

    #[test]
    fn a_mime_type_set_on_the_body_wins() {
        let contents = complete(
            ResourceBody::text("# hi")
                .with_mime_type("text/markdown")
                .into_resource_outcome("test://a", Some("text/plain")),
        );
        assert_eq!(
            contents,
            vec![ResourceContents::text("test://a", "text/markdown", "# hi")]
        );
        let undeclared = ResourceBody::text("x").into_contents("test://b", None);
        assert_eq!(
            undeclared,
            ResourceContents::Text(TextResourceContents {
                uri: "test://b".into(),
                mime_type: None,
                text: "x".into(),
                meta: None,
            })
        );
    }

    #[test]
    fn blobs_are_base64_encoded() {
        let contents = ResourceBody::blob([0u8, 1, 2, 255]).into_contents("test://bin", None);
        assert_eq!(
            contents,
            ResourceContents::Blob(BlobResourceContents {
                uri: "test://bin".into(),
                mime_type: None,
                blob: "AAEC/w==".into(),
                meta: None,
            })
        );
    }

    #[test]
    fn a_reply_fills_in_the_uri_when_done_and_asks_otherwise() {
        let done: Reply<(), ResourceBody> = Reply::resource_text("t");
        assert_eq!(
            complete(done.into_resource_outcome("test://x", Some("text/plain"))),
            vec![ResourceContents::text("test://x", "text/plain", "t")]
        );
        let ask: Reply<u8, ResourceBody> =
            Reply::ask("k", crate::form::UrlConsent::request("Go.", "https://e.x")).resume(7);
        match ask.into_resource_outcome("test://x", None) {
            Ok(Outcome::InputRequired(ask)) => {
                assert!(ask.input_requests().is_some_and(|r| r.contains_key("k")));
                assert!(ask.has_state(), "the resume value travels");
            }
            other => panic!("expected an ask, got {other:?}"),
        }
    }
}
