//! The typed answer to a URL-mode elicitation.

use std::sync::OnceLock;

use super::{ElicitForm, FormDecoder, FormError, FormSchema};
use crate::schema::{InputRequest, RenderedSchema};

/// The answer to a URL-mode elicitation, read with
/// [`Ctx::answer`](crate::server::handler::Ctx::answer): the user was asked
/// to open a URL (to sign in, to pay) and answered `accept`, `decline` or
/// `cancel`, with no content.
///
/// [`Answer::Accept`](super::Answer::Accept) means the user **agreed to open
/// the URL**, not that whatever happens there is finished: in 2026-07-28 the
/// client retries as soon as the user consents, and the server decides from
/// its own records (keyed by an id it put in the resume state) whether the
/// step is done. `Decline` is an explicit no, `Cancel` a dismissal, and
/// `Missing` (no answer under the key this round) means ask again.
///
/// Asking needs a client that declared `elicitation.url`; otherwise the
/// request is refused with `-32021` before it leaves. Check first with
/// `ctx.client_capabilities().supports_elicitation_url()`.
///
/// ```
/// use mcp_runtime::form::UrlConsent;
/// use mcp_runtime::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)]
/// enum Step {
///     /// Sent to the sign-in page; the id names the attempt in our store.
///     SigningIn { attempt: String },
/// }
///
/// fn signed_in(attempt: &str) -> bool {
///     // Look the attempt up in the server's own store.
///     attempt == "a-17"
/// }
///
/// /// The user's repositories.
/// #[tool]
/// async fn repositories(ctx: Ctx, step: Resume<Step>) -> Reply<Step> {
///     let sign_in = |attempt: String| {
///         let url = format!("https://example.com/login?attempt={attempt}");
///         Reply::ask("login", UrlConsent::request("Sign in to list your repositories.", url))
///             .resume(Step::SigningIn { attempt })
///     };
///     let Some(Step::SigningIn { attempt }) = step.into_inner() else {
///         return sign_in("a-17".to_owned());
///     };
///     match ctx.answer::<UrlConsent>("login") {
///         // Consent, not completion: check that the sign-in happened.
///         Answer::Accept(UrlConsent) if signed_in(&attempt) => Reply::text("3 repositories."),
///         Answer::Accept(UrlConsent) => Reply::text("The sign-in is not finished yet."),
///         Answer::Decline | Answer::Cancel => Reply::text("Not signed in."),
///         Answer::Missing | Answer::Invalid(_) => sign_in(attempt),
///     }
/// }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct UrlConsent;

impl UrlConsent {
    /// A URL-mode `elicitation/create` input request: `message` tells the
    /// user why, `url` is where to go (no credentials or personal data in
    /// it; `https` in production). Read the answer as a `UrlConsent`.
    ///
    /// ```
    /// use mcp_runtime::form::UrlConsent;
    ///
    /// let request = UrlConsent::request("Sign in first.", "https://example.com/login");
    /// let json = serde_json::to_value(&request)?;
    /// assert_eq!(json["method"], "elicitation/create");
    /// assert_eq!(json["params"]["mode"], "url");
    /// assert_eq!(json["params"]["url"], "https://example.com/login");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn request(message: impl Into<String>, url: impl Into<String>) -> InputRequest {
        InputRequest::elicit_url(message, url)
    }
}

/// A form with no fields: an accepted answer carries no content, and any
/// content a client sends anyway is ignored.
impl ElicitForm for UrlConsent {
    fn form_schema() -> &'static RenderedSchema {
        static SCHEMA: OnceLock<RenderedSchema> = OnceLock::new();
        SCHEMA.get_or_init(|| FormSchema::new().render())
    }

    fn decode(_: &mut FormDecoder<'_>) -> Result<Self, FormError> {
        Ok(Self)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::form::Answer;

    fn read(response: serde_json::Value) -> Answer<UrlConsent> {
        Answer::from_response(Some(&response))
    }

    #[test]
    fn reads_each_action_of_a_url_answer() {
        assert_eq!(
            read(json!({"action": "accept"})),
            Answer::Accept(UrlConsent)
        );
        assert_eq!(
            read(json!({"action": "accept", "content": {"stray": 1}})),
            Answer::Accept(UrlConsent),
            "content a URL answer should not have is ignored"
        );
        assert_eq!(read(json!({"action": "decline"})), Answer::Decline);
        assert_eq!(read(json!({"action": "cancel"})), Answer::Cancel);
        assert_eq!(Answer::<UrlConsent>::from_response(None), Answer::Missing);
        assert!(matches!(
            read(json!({"action": "visited"})),
            Answer::Invalid(FormError { field: None, .. })
        ));
        assert!(matches!(read(json!("accept")), Answer::Invalid(_)));
    }

    #[test]
    fn asks_in_url_mode() {
        let request = UrlConsent::request("Pay here.", "https://example.com/pay");
        assert_eq!(
            serde_json::to_value(&request).ok(),
            Some(json!({
                "method": "elicitation/create",
                "params": {"mode": "url", "message": "Pay here.", "url": "https://example.com/pay"}
            }))
        );
    }
}
