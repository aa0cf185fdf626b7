//! The client signs in: OAuth 2.1 as the MCP authorization spec asks.
//!
//! Give [`crate::client::ClientBuilder::oauth`] an [`OAuth`]: on a 401 the
//! client discovers the authorization server from the challenge (RFC
//! 9728, RFC 8414 / OpenID Connect discovery), registers (pre-registered
//! credentials, a Client ID Metadata Document URL, or RFC 7591), signs in
//! (authorization code with PKCE S256 through a [`SignIn`], or client
//! credentials), and sends the request again with the token. Tokens are
//! refreshed before they expire and on a 401, one refresh at a time; a 403
//! `insufficient_scope` asks again for the union of the scopes, a bounded
//! number of times. `resource` (RFC 8707) goes with the authorization
//! request, the token request and every refresh.
//!
//! ```no_run
//! use mcp_runtime::client::Client;
//! use mcp_runtime::client::auth::{FileStore, LoopbackSignIn, OAuth};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let oauth = OAuth::authorization_code(LoopbackSignIn::new()?)
//!     .scopes(["mcp:tools"])
//!     .store(FileStore::new("/home/me/.config/app/tokens.json"));
//! let client = Client::http("https://example.com/mcp").oauth(oauth).connect().await?;
//! # let _ = client;
//! # Ok(()) }
//! ```

mod authorizer;
mod challenge;
mod discovery;
mod fetch;
mod pkce;
mod registration;
mod secret;
mod sign_in;
mod store;
mod token;

#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

pub(crate) use authorizer::Authorizer;
pub use secret::Secret;
pub use sign_in::{HeadlessSignIn, LoopbackSignIn, Redirect, SignIn};
pub use store::{FileStore, MemoryStore, Registration, StoredAuth, TokenStore, Tokens};

/// How the client signs in: the grant, its identity and where it keeps its
/// tokens.
pub struct OAuth {
    grant: Grant,
    client_name: String,
    client_id: Option<String>,
    client_secret: Option<Secret>,
    client_metadata_url: Option<String>,
    scopes: Vec<String>,
    store: Arc<dyn TokenStore>,
}

enum Grant {
    AuthorizationCode(Arc<dyn SignIn>),
    ClientCredentials(Option<token::SigningKey>),
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let grant = match &self.grant {
            Grant::AuthorizationCode(_) => "authorization_code",
            Grant::ClientCredentials(None) => "client_credentials",
            Grant::ClientCredentials(Some(_)) => "client_credentials (private_key_jwt)",
        };
        f.debug_struct("OAuth")
            .field("grant", &grant)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl OAuth {
    fn with_grant(grant: Grant) -> Self {
        Self {
            grant,
            client_name: "mcp-runtime-client".into(),
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            scopes: Vec::new(),
            store: Arc::new(MemoryStore::new()),
        }
    }

    /// Signs in with the authorization code grant and PKCE, the user taken
    /// through the authorization URL by `sign_in`.
    pub fn authorization_code(sign_in: impl SignIn) -> Self {
        Self::with_grant(Grant::AuthorizationCode(Arc::new(sign_in)))
    }

    /// Signs in as a machine with the client credentials grant and a
    /// client secret (`client_secret_basic` or `client_secret_post`, as
    /// the server supports).
    pub fn client_credentials(
        client_id: impl Into<String>,
        client_secret: impl Into<Secret>,
    ) -> Self {
        Self::with_grant(Grant::ClientCredentials(None))
            .client_id(client_id)
            .client_secret(client_secret)
    }

    /// Signs in as a machine with the client credentials grant,
    /// authenticated by a JWT signed with `key_pem` (`private_key_jwt`,
    /// RFC 7523); `algorithm` is `ES256`, `ES384`, `RS256`, `EdDSA`...
    ///
    /// Prefer an EC (`ES256`) or Ed25519 (`EdDSA`) key: RSA signing goes
    /// through the `rsa` crate, whose private-key operations are not
    /// constant time (RUSTSEC-2023-0071, no fixed version yet).
    pub fn private_key_jwt(
        client_id: impl Into<String>,
        key_pem: &str,
        algorithm: &str,
    ) -> Result<Self, AuthError> {
        let key = token::SigningKey::from_pem(key_pem, algorithm)?;
        Ok(Self::with_grant(Grant::ClientCredentials(Some(key))).client_id(client_id))
    }

    /// Uses a pre-registered client id instead of registering.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The pre-registered client's secret.
    pub fn client_secret(mut self, secret: impl Into<Secret>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// The URL of this client's Client ID Metadata Document, used as its
    /// client id where the authorization server supports them.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// The `client_name` sent when registering.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Scopes asked for when neither the challenge nor the protected
    /// resource names any.
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Keeps registrations and tokens in `store` (by default in memory).
    pub fn store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }
}

/// Why signing in failed. No variant carries a token or a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthError {
    /// The metadata could not be found or read.
    Discovery(String),
    /// The protected resource metadata names another resource than the
    /// server the client talks to.
    ResourceMismatch {
        /// The metadata's `resource`.
        resource: String,
        /// The server's URL.
        server: String,
    },
    /// The authorization server's metadata, or its redirect's `iss` (RFC
    /// 9207), names another issuer than the one expected.
    IssuerMismatch {
        /// The issuer expected.
        expected: String,
        /// The issuer found (empty when it was missing).
        found: String,
    },
    /// Registering the client failed.
    Registration(String),
    /// The user's part failed: no redirect, a wrong `state`.
    SignIn(String),
    /// The authorization server refused the authorization request.
    Denied {
        /// `error`.
        error: String,
        /// `error_description`.
        description: String,
    },
    /// The token endpoint refused a request.
    TokenRejected {
        /// The HTTP status.
        status: u16,
        /// `error` (`invalid_grant`, `invalid_client`...).
        error: String,
        /// `error_description`, shortened.
        description: String,
    },
    /// The server still refused the token with `insufficient_scope` after
    /// the bounded number of step-ups.
    StepUpLimit {
        /// The scopes last asked for.
        scopes: Vec<String>,
    },
    /// The server still answered 401 right after signing in.
    StillUnauthorized,
    /// An authorization HTTP exchange failed.
    Http {
        /// The URL.
        url: String,
        /// What failed.
        detail: String,
    },
    /// The token store failed.
    Store(String),
    /// The configuration cannot work (a bad key, a missing setting).
    Config(String),
    /// Something the client needs was unavailable (randomness).
    Internal(String),
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Discovery(d) => write!(f, "discovery failed: {d}"),
            Self::ResourceMismatch { resource, server } => write!(
                f,
                "the protected resource metadata is for {resource}, not {server}"
            ),
            Self::IssuerMismatch { expected, found } => {
                write!(f, "expected issuer {expected:?}, found {found:?}")
            }
            Self::Registration(d) => write!(f, "client registration failed: {d}"),
            Self::SignIn(d) => write!(f, "sign-in failed: {d}"),
            Self::Denied { error, description } => {
                write!(f, "the authorization server refused: {error} {description}")
            }
            Self::TokenRejected {
                status,
                error,
                description,
            } => write!(
                f,
                "the token endpoint answered {status}: {error} {description}"
            ),
            Self::StepUpLimit { scopes } => write!(
                f,
                "still insufficient scope after stepping up to {:?}",
                scopes.join(" ")
            ),
            Self::StillUnauthorized => write!(f, "the server refused the new token"),
            Self::Http { url, detail } => write!(f, "{url}: {detail}"),
            Self::Store(d) => write!(f, "token store: {d}"),
            Self::Config(d) => write!(f, "authorization configuration: {d}"),
            Self::Internal(d) => write!(f, "{d}"),
        }
    }
}

impl std::error::Error for AuthError {}
