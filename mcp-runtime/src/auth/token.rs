//! What a verified access token says, and the trait that verifies one.

use crate::BoxFuture;

/// A verified access token: whom it was issued for, to which client, with
/// which scopes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessToken {
    /// The subject (`sub`): the user, or the client acting for itself.
    pub subject: String,
    /// The OAuth client the token was issued to (`client_id`, `azp`).
    pub client_id: Option<String>,
    /// The scopes granted (`scope`, space-separated on the wire).
    pub scopes: Vec<String>,
    /// When it expires, in seconds since the Unix epoch (`exp`).
    pub expires_at: Option<u64>,
}

impl AccessToken {
    /// A token of `subject` with no client, scopes or expiry.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            ..Self::default()
        }
    }

    /// The token with its client id.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The token with `scopes`.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes of a space-separated `scope` value.
    pub fn parse_scopes(scope: &str) -> Vec<String> {
        scope.split_ascii_whitespace().map(str::to_owned).collect()
    }
}

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// Invalid, expired, not yet valid, for another audience or issuer:
    /// answered 401 `invalid_token`. The reason is logged, never sent.
    Invalid(String),
    /// The verifier could not decide (the authorization server cannot be
    /// reached): answered 503, so the client retries instead of signing in
    /// again.
    Unavailable(String),
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Invalid(why) => write!(f, "invalid token: {why}"),
            Self::Unavailable(why) => write!(f, "cannot verify the token now: {why}"),
        }
    }
}

impl std::error::Error for TokenError {}

/// Verifies a bearer token for one protected resource: its signature or
/// its introspection, its issuer, its audience (the resource's canonical
/// URI), its validity period. `HttpTransport::protect` calls it on every
/// request.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Checks `token` (the part after `Bearer `).
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AccessToken, TokenError>>;
}

impl<F> TokenVerifier for F
where
    F: Fn(&str) -> Result<AccessToken, TokenError> + Send + Sync + 'static,
{
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AccessToken, TokenError>> {
        let verified = self(token);
        Box::pin(async move { verified })
    }
}
