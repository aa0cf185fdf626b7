//! The trait that verifies an access token, and how it fails. A verified
//! token is a [`Caller`]: its subject, client and scopes.

use super::Caller;
use crate::BoxFuture;

/// The scopes of a space-separated `scope` value (RFC 6749).
pub fn parse_scopes(scope: &str) -> Vec<String> {
    scope.split_ascii_whitespace().map(str::to_owned).collect()
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

/// Verifies a bearer token for one protected resource (its signature or
/// its introspection, its issuer, its audience: the resource's canonical
/// URI, its validity period) and names the caller it was issued for.
/// `HttpTransport::protect` calls it on every request.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Checks `token` (the part after `Bearer `).
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, TokenError>>;
}

impl<F> TokenVerifier for F
where
    F: Fn(&str) -> Result<Caller, TokenError> + Send + Sync + 'static,
{
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, TokenError>> {
        let verified = self(token);
        Box::pin(async move { verified })
    }
}
