//! JWT access tokens checked against the authorization server's published
//! keys (JWKS), with `jsonwebtoken` doing the JOSE.

use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde::Deserialize;
use std::sync::{Arc, PoisonError, RwLock};

use tokio::sync::Mutex;

use super::Caller;
use super::fetch::body_within_limit;
use super::{ProtectedResource, TokenError, TokenVerifier, parse_scopes};
use crate::BoxFuture;

/// The clock leeway for `exp` and `nbf` by default: 30 s.
pub(super) const LEEWAY: Duration = Duration::from_secs(30);
/// How long fetched keys are used by default: 10 min.
const KEYS_MAX_AGE: Duration = Duration::from_secs(600);
/// The least time between two fetches of the keys by default: 10 s.
const REFETCH_INTERVAL: Duration = Duration::from_secs(10);
/// The bound on one fetch from the authorization server by default: 5 s.
pub(super) const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The default clock leeway for `exp` and `nbf` (30 s).
#[doc(hidden)]
#[deprecated(
    note = "the default (30 s) is stated on `JwtVerifier::leeway`; this constant goes away"
)]
pub const DEFAULT_LEEWAY: Duration = LEEWAY;
/// How long fetched keys are used before they are fetched again (10 min).
#[doc(hidden)]
#[deprecated(
    note = "the default (10 min) is stated on `JwtVerifier::keys_max_age`; this constant goes away"
)]
pub const DEFAULT_KEYS_MAX_AGE: Duration = KEYS_MAX_AGE;
/// The default least time between two fetches of the keys (10 s).
#[doc(hidden)]
#[deprecated(
    note = "the default (10 s) is stated on `JwtVerifier::refetch_interval`; this constant goes away"
)]
pub const MIN_REFETCH_INTERVAL: Duration = REFETCH_INTERVAL;
/// The default bound on one fetch of the authorization server's metadata
/// or keys (5 s).
#[doc(hidden)]
#[deprecated(
    note = "the default (5 s) is stated on `JwtVerifier::fetch_timeout`; this constant goes away"
)]
pub const DEFAULT_FETCH_TIMEOUT: Duration = FETCH_TIMEOUT;

/// A JWS signature algorithm a [`JwtVerifier`] may accept (the `alg` of a
/// token's header), named as in RFC 7518 (and RFC 8037 for EdDSA).
///
/// Only asymmetric algorithms are here: a resource server checks a token
/// with the authorization server's public key and holds no shared secret,
/// so the HMAC algorithms (`HS256`, `HS384`, `HS512`) cannot be named, and
/// neither can `none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(clippy::upper_case_acronyms)]
pub enum JwtAlgorithm {
    /// `RS256`: RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// `RS384`: RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// `RS512`: RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// `PS256`: RSASSA-PSS with SHA-256 and MGF1 with SHA-256.
    PS256,
    /// `PS384`: RSASSA-PSS with SHA-384 and MGF1 with SHA-384.
    PS384,
    /// `PS512`: RSASSA-PSS with SHA-512 and MGF1 with SHA-512.
    PS512,
    /// `ES256`: ECDSA on P-256 with SHA-256.
    ES256,
    /// `ES384`: ECDSA on P-384 with SHA-384.
    ES384,
    /// `EdDSA`: Edwards-curve signatures (Ed25519).
    EdDSA,
}

impl JwtAlgorithm {
    /// Every algorithm: what a verifier accepts by default.
    const ALL: [Self; 9] = [
        Self::RS256,
        Self::RS384,
        Self::RS512,
        Self::PS256,
        Self::PS384,
        Self::PS512,
        Self::ES256,
        Self::ES384,
        Self::EdDSA,
    ];

    /// The name of the algorithm in a token's header (`"RS256"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::RS256 => "RS256",
            Self::RS384 => "RS384",
            Self::RS512 => "RS512",
            Self::PS256 => "PS256",
            Self::PS384 => "PS384",
            Self::PS512 => "PS512",
            Self::ES256 => "ES256",
            Self::ES384 => "ES384",
            Self::EdDSA => "EdDSA",
        }
    }

    /// The JOSE library's name for it.
    fn jose(self) -> Algorithm {
        match self {
            Self::RS256 => Algorithm::RS256,
            Self::RS384 => Algorithm::RS384,
            Self::RS512 => Algorithm::RS512,
            Self::PS256 => Algorithm::PS256,
            Self::PS384 => Algorithm::PS384,
            Self::PS512 => Algorithm::PS512,
            Self::ES256 => Algorithm::ES256,
            Self::ES384 => Algorithm::ES384,
            Self::EdDSA => Algorithm::EdDSA,
        }
    }

    /// The algorithm a token's header names, when it is one of these
    /// (`None` for HMAC, and for any the JOSE library adds later).
    fn from_jose(alg: Algorithm) -> Option<Self> {
        Self::ALL.into_iter().find(|ours| ours.jose() == alg)
    }
}

impl std::fmt::Display for JwtAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Verifies JWT access tokens (RFC 9068) issued by one authorization
/// server for one protected resource: the signature with the server's
/// published key (fetched from its `jwks_uri`, cached, fetched again when a
/// token names a key not yet known), and by default the issuer, the
/// audience (the resource's canonical URI), `exp` and `nbf` with a small
/// leeway. Only asymmetric algorithms are accepted (RS256, RS384, RS512,
/// PS256, PS384, PS512, ES256, ES384, EdDSA by default), so neither
/// `alg: none` nor an HMAC token keyed with a public key gets through.
///
/// ```no_run
/// use mcp_runtime::auth::{JwtVerifier, ProtectedResource};
///
/// # async fn protect() -> Result<(), Box<dyn std::error::Error>> {
/// let resource = ProtectedResource::new("https://mcp.example.com/mcp", "https://auth.example.com")?;
/// // The keys' URL from the authorization server's metadata.
/// let verifier = JwtVerifier::discover(&resource).await?;
/// # let _ = verifier; Ok(()) }
/// ```
pub struct JwtVerifier {
    issuer: String,
    audience: Option<String>,
    jwks_uri: String,
    algorithms: Vec<JwtAlgorithm>,
    leeway: Duration,
    keys_max_age: Duration,
    refetch_interval: Duration,
    fetch_timeout: Duration,
    http: reqwest::Client,
    /// The keys as last fetched; read by every verification, written only
    /// by the one holding `fetching`.
    keys: RwLock<Keys>,
    /// Held while the keys are fetched, so one fetch runs at a time and
    /// verifications with a cached key never wait for it.
    fetching: Mutex<()>,
}

/// The keys as last fetched.
#[derive(Clone)]
struct Keys {
    set: Arc<JwkSet>,
    /// When `set` was fetched; `None` before the first success.
    fetched: Option<Instant>,
    /// When a fetch was last tried, successful or not.
    attempted: Option<Instant>,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("jwks_uri", &self.jwks_uri)
            .field("algorithms", &self.algorithms)
            .field("leeway", &self.leeway)
            .field("keys_max_age", &self.keys_max_age)
            .field("refetch_interval", &self.refetch_interval)
            .field("fetch_timeout", &self.fetch_timeout)
            .finish_non_exhaustive()
    }
}

/// The claims read from an access token.
#[derive(Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    azp: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Vec<String>>,
}

/// The part of an authorization server's metadata the verifier needs.
#[derive(Deserialize)]
struct ServerMetadata {
    issuer: String,
    jwks_uri: Option<String>,
}

impl JwtVerifier {
    /// A verifier of tokens for `resource` from its first authorization
    /// server, whose keys are at `jwks_uri`.
    pub fn new(resource: &ProtectedResource, jwks_uri: impl Into<String>) -> Self {
        Self {
            issuer: resource
                .authorization_servers()
                .first()
                .cloned()
                .unwrap_or_default(),
            audience: Some(resource.resource().to_owned()),
            jwks_uri: jwks_uri.into(),
            algorithms: JwtAlgorithm::ALL.to_vec(),
            leeway: LEEWAY,
            keys_max_age: KEYS_MAX_AGE,
            refetch_interval: REFETCH_INTERVAL,
            fetch_timeout: FETCH_TIMEOUT,
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap_or_default(),
            keys: RwLock::new(Keys {
                set: Arc::new(JwkSet { keys: Vec::new() }),
                fetched: None,
                attempted: None,
            }),
            fetching: Mutex::new(()),
        }
    }

    /// A verifier for `resource` whose keys' URL is read from its first
    /// authorization server's metadata (RFC 8414
    /// `/.well-known/oauth-authorization-server`, then OpenID Connect
    /// discovery). The metadata's `issuer` must be the configured one.
    pub async fn discover(resource: &ProtectedResource) -> Result<Self, TokenError> {
        let mut verifier = Self::new(resource, String::new());
        let issuer = verifier.issuer.clone();
        let mut last = String::new();
        for url in metadata_urls(&issuer) {
            match verifier.fetch_json::<ServerMetadata>(&url).await {
                Ok(metadata) if metadata.issuer == issuer => {
                    let Some(jwks_uri) = metadata.jwks_uri else {
                        return Err(TokenError::Unavailable(format!(
                            "the metadata at {url} has no jwks_uri"
                        )));
                    };
                    verifier.jwks_uri = jwks_uri;
                    return Ok(verifier);
                }
                Ok(metadata) => {
                    return Err(TokenError::Unavailable(format!(
                        "the metadata at {url} names the issuer {:?}, not {issuer:?}",
                        metadata.issuer
                    )));
                }
                Err(error) => last = error,
            }
        }
        Err(TokenError::Unavailable(format!(
            "no authorization server metadata for {issuer:?}: {last}"
        )))
    }

    /// The algorithms accepted: an allow-list (default: every
    /// [`JwtAlgorithm`], all of them asymmetric). A token whose header
    /// names another algorithm is refused before its key is looked up. An
    /// empty list refuses every token.
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = JwtAlgorithm>) -> Self {
        self.algorithms = algorithms.into_iter().collect();
        self
    }

    /// The clock leeway for `exp` and `nbf`: how far past its `exp` a
    /// token is still accepted, and how far before its `nbf` (default
    /// 30 s). Counted in whole seconds; a fraction is dropped.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How long fetched keys are used before they are fetched again
    /// (default 10 min).
    pub fn keys_max_age(mut self, max_age: Duration) -> Self {
        self.keys_max_age = max_age;
        self
    }

    /// The least time between two fetches of the keys (default 10 s): a
    /// token naming an unknown key fetches them again, but a flood of such
    /// tokens fetches no more often.
    pub fn refetch_interval(mut self, interval: Duration) -> Self {
        self.refetch_interval = interval;
        self
    }

    /// The bound on one fetch of the keys, from connecting to the last
    /// byte of the answer (default 5 s). [`Self::discover`] reads the
    /// authorization server's metadata within the default.
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }

    /// **Accepts tokens issued for any audience.** A token the
    /// authorization server issued for another resource (another MCP
    /// server, an API) then works here too: whoever holds one can replay it
    /// against this server. Only for authorization servers that cannot
    /// audience-restrict tokens, and only when every resource they serve
    /// trusts every other.
    pub fn accept_tokens_for_any_audience_insecure(mut self) -> Self {
        self.audience = None;
        self
    }

    async fn fetch_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let response = self
            .http
            .get(url)
            .timeout(self.fetch_timeout)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("GET {url}: HTTP {}", response.status()));
        }
        let body = body_within_limit(response)
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        serde_json::from_slice(&body).map_err(|e| format!("GET {url}: not the JSON expected: {e}"))
    }

    /// The key `kid` (or the only key, when the token names none): from
    /// the cache, or fetched again when it is unknown (at most once per
    /// refetch interval) or the cache is old. A verification whose key is
    /// cached never waits for a fetch: while one runs, an old cache still
    /// serves the keys it has.
    async fn key(&self, kid: Option<&str>) -> Result<DecodingKey, TokenError> {
        let cached = self.cached();
        if !self.wants_fetch(&cached, kid) {
            return decoding_key(&cached.set, kid);
        }
        let gate = match self.fetching.try_lock() {
            Ok(gate) => gate,
            // Another verification is fetching: use what is cached when it
            // has the key, and wait for the fetch only when it has not.
            Err(_) if find(&cached.set, kid).is_some() => return decoding_key(&cached.set, kid),
            Err(_) => self.fetching.lock().await,
        };
        // The fetch that just ended may have brought the key.
        let cached = self.cached();
        if !self.wants_fetch(&cached, kid) {
            return decoding_key(&cached.set, kid);
        }
        let fetched = self.fetch_json::<JwkSet>(&self.jwks_uri).await;
        let now = Some(Instant::now());
        let mut slot = self.keys.write().unwrap_or_else(PoisonError::into_inner);
        slot.attempted = now;
        match fetched {
            Ok(set) => {
                slot.set = Arc::new(set);
                slot.fetched = now;
            }
            Err(error) if slot.fetched.is_none() => return Err(TokenError::Unavailable(error)),
            // The keys cached still serve; the failed attempt counts, so
            // tokens naming unknown keys cannot turn an unreachable server
            // into a fetch loop.
            Err(error) => {
                tracing::warn!(%error, "could not fetch the authorization server's keys again");
            }
        }
        let cached = slot.clone();
        drop(slot);
        drop(gate);
        decoding_key(&cached.set, kid)
    }

    /// The keys as last fetched.
    fn cached(&self) -> Keys {
        self.keys
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether the keys must be fetched for `kid`: always before the first
    /// success; afterwards when they are old or lack `kid`, at most once
    /// per refetch interval.
    fn wants_fetch(&self, keys: &Keys, kid: Option<&str>) -> bool {
        let Some(fetched) = keys.fetched else {
            return true;
        };
        let stale = fetched.elapsed() >= self.keys_max_age;
        let unknown = find(&keys.set, kid).is_none();
        let may = keys
            .attempted
            .is_none_or(|at| at.elapsed() >= self.refetch_interval);
        (stale || unknown) && may
    }
}

/// The decoding key for `kid` in `set`, or why the token cannot be checked.
fn decoding_key(set: &JwkSet, kid: Option<&str>) -> Result<DecodingKey, TokenError> {
    let jwk = find(set, kid)
        .ok_or_else(|| TokenError::Invalid(format!("no published key {kid:?} signs this token")))?;
    DecodingKey::from_jwk(jwk)
        .map_err(|e| TokenError::Invalid(format!("the published key {kid:?} is unusable: {e}")))
}

/// The key named `kid`, or the only key when `kid` is `None`.
fn find<'a>(set: &'a JwkSet, kid: Option<&str>) -> Option<&'a jsonwebtoken::jwk::Jwk> {
    match kid {
        Some(kid) => set.find(kid),
        None if set.keys.len() == 1 => set.keys.first(),
        None => None,
    }
}

/// Where an issuer's metadata may be: RFC 8414 (the well-known prefix
/// inserted before the issuer's path), then OpenID Connect discovery.
fn metadata_urls(issuer: &str) -> Vec<String> {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = match trimmed.split_once("://") {
        Some((scheme, rest)) => match rest.find('/') {
            Some(i) => (format!("{scheme}://{}", &rest[..i]), rest[i..].to_owned()),
            None => (trimmed.to_owned(), String::new()),
        },
        None => (trimmed.to_owned(), String::new()),
    };
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!("{trimmed}/.well-known/openid-configuration"),
    ]
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, TokenError>> {
        Box::pin(async move {
            let header =
                decode_header(token).map_err(|e| TokenError::Invalid(format!("not a JWT: {e}")))?;
            let Some(alg) =
                JwtAlgorithm::from_jose(header.alg).filter(|alg| self.algorithms.contains(alg))
            else {
                return Err(TokenError::Invalid(format!(
                    "the algorithm {:?} is not accepted",
                    header.alg
                )));
            };
            let key = self.key(header.kid.as_deref()).await?;
            let mut validation = Validation::new(alg.jose());
            validation.algorithms = vec![alg.jose()];
            validation.set_issuer(&[self.issuer.as_str()]);
            match &self.audience {
                Some(audience) => validation.set_audience(&[audience.as_str()]),
                None => validation.validate_aud = false,
            }
            let mut required = vec!["exp", "iss", "sub"];
            if self.audience.is_some() {
                required.push("aud");
            }
            validation.set_required_spec_claims(&required);
            validation.leeway = self.leeway.as_secs();
            validation.validate_nbf = true;
            let claims = decode::<Claims>(token, &key, &validation)
                .map_err(|e| TokenError::Invalid(format!("refused: {e}")))?
                .claims;
            let scopes = match (claims.scope, claims.scp) {
                (Some(scope), _) => parse_scopes(&scope),
                (None, Some(scp)) => scp,
                (None, None) => Vec::new(),
            };
            Ok(Caller {
                subject: claims.sub,
                client_id: claims.client_id.or(claims.azp),
                scopes,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_looked_for_where_rfc_8414_and_oidc_put_it() {
        assert_eq!(
            metadata_urls("https://auth.example.com/"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("https://auth.example.com/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn our_algorithms_are_the_jose_ones_of_the_same_name_and_never_hmac() {
        for ours in JwtAlgorithm::ALL {
            assert_eq!(format!("{:?}", ours.jose()), ours.name());
            assert_eq!(JwtAlgorithm::from_jose(ours.jose()), Some(ours));
        }
        for hmac in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
            assert_eq!(JwtAlgorithm::from_jose(hmac), None);
        }
    }

    #[test]
    fn the_allow_list_is_the_one_given() {
        let resource = ProtectedResource::new("https://m.example.com/mcp", "https://a.example.com")
            .unwrap_or_else(|e| panic!("{e}"));
        let verifier = JwtVerifier::new(&resource, "https://a.example.com/jwks");
        assert_eq!(verifier.algorithms, JwtAlgorithm::ALL);
        let verifier = verifier.algorithms([JwtAlgorithm::ES256, JwtAlgorithm::EdDSA]);
        assert_eq!(
            verifier.algorithms,
            [JwtAlgorithm::ES256, JwtAlgorithm::EdDSA]
        );
    }
}
