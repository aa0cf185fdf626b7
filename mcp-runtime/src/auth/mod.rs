//! Authorization for a protected MCP server: an OAuth 2.1 resource server.
//!
//! [`ProtectedResource`] is who the server is (its canonical URI, which
//! tokens must name as their audience, and the authorization servers that
//! issue them); it serves the metadata document clients discover it by
//! (RFC 9728) and writes the `WWW-Authenticate` challenges that point there
//! (RFC 6750). A [`TokenVerifier`] turns a bearer token into the
//! [`Caller`] it names (subject, client, scopes) or
//! refuses it.
//! `HttpTransport::protect` puts the two in front of every request: no
//! token is 401 with the challenge, an invalid one 401 `invalid_token`, a
//! token without the required scopes 403 `insufficient_scope`, and a
//! verifier that cannot decide 503. The token's subject and client become
//! the request's caller, which every `requestState` is bound to.

#[cfg(feature = "auth")]
mod answers;
mod caller;
#[cfg(feature = "auth")]
mod fetch;
#[cfg(feature = "auth")]
mod introspection;
#[cfg(feature = "auth")]
mod jwt;
mod resource;
mod token;

pub use caller::Caller;
#[cfg(feature = "auth")]
pub use introspection::IntrospectionVerifier;
#[cfg(feature = "auth")]
pub use jwt::{JwtAlgorithm, JwtVerifier};
// Kept for one release, hidden: the defaults are stated on the setters.
#[cfg(feature = "auth")]
#[allow(deprecated)]
pub use jwt::{DEFAULT_FETCH_TIMEOUT, DEFAULT_KEYS_MAX_AGE, DEFAULT_LEEWAY, MIN_REFETCH_INTERVAL};
pub use resource::{AuthConfigError, Challenge, METADATA_PATH, ProtectedResource, scope_challenge};
pub use token::{TokenError, TokenVerifier, parse_scopes};
