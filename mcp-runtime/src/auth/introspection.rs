//! Opaque access tokens checked by asking the authorization server
//! (OAuth 2.0 Token Introspection, RFC 7662).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Deserialize;
use serde_json::Value;
use tokio::sync::Semaphore;

use super::Caller;
use super::answers::{AnswerCache, digest};
use super::jwt::{FETCH_TIMEOUT, LEEWAY};
use super::{ProtectedResource, TokenError, parse_scopes};
use super::{TokenVerifier, fetch::body_within_limit};
use crate::BoxFuture;

/// Verifies opaque tokens by introspection (RFC 7662): the authorization
/// server says whether the token is active, and by default the verifier
/// also checks that its audience (`aud`) names this resource, that its
/// issuer (`iss`, when given) is the configured one, and `exp` and `nbf`
/// with a small leeway.
///
/// An answer of 4xx, or `active: false`, refuses the token (401); no
/// answer, or a 5xx, is [`TokenError::Unavailable`] (503). A token whose
/// answer has no `sub` is the client acting for itself: its subject is
/// `client:<client_id>`.
///
/// At most [`max_concurrent_calls`](Self::max_concurrent_calls) calls run
/// at once, and a verification waits for a free call and its answer at
/// most [`fetch_timeout`](Self::fetch_timeout), so a slow authorization
/// server holds no request longer than that (it is answered 503). Answers
/// are asked afresh for every request unless a
/// [`cache_ttl`](Self::cache_ttl) is set.
///
/// ```no_run
/// use mcp_runtime::auth::{IntrospectionVerifier, ProtectedResource};
///
/// # fn protect() -> Result<(), Box<dyn std::error::Error>> {
/// let resource = ProtectedResource::new("https://mcp.example.com/mcp", "https://auth.example.com")?;
/// let verifier = IntrospectionVerifier::new(&resource, "https://auth.example.com/introspect")
///     .client_credentials("mcp-server", "a secret from the vault");
/// # let _ = verifier; Ok(()) }
/// ```
pub struct IntrospectionVerifier {
    endpoint: String,
    credentials: Option<(String, String)>,
    audience: Option<String>,
    issuer: String,
    leeway: Duration,
    fetch_timeout: Duration,
    http: reqwest::Client,
    /// Answers kept by the token's digest (off by default).
    cache: AnswerCache<Verdict>,
    /// The calls that may run at once.
    calls: Semaphore,
    max_calls: usize,
}

/// The most answers kept by default, once a cache TTL is set.
const CACHE_CAPACITY: usize = 10_000;

/// The most introspection calls that run at once by default.
const MAX_CONCURRENT_CALLS: usize = 32;

/// What an answer decided, before the checks that depend on the time of
/// use: the caller with its token's validity period, or why the token is
/// refused.
type Verdict = Result<Active, String>;

/// An active token that names this resource and its issuer.
#[derive(Clone)]
struct Active {
    caller: Caller,
    exp: Option<u64>,
    nbf: Option<u64>,
}

impl std::fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionVerifier")
            .field("endpoint", &self.endpoint)
            .field(
                "client_id",
                &self.credentials.as_ref().map(|(id, _)| id.as_str()),
            )
            .field("audience", &self.audience)
            .field("issuer", &self.issuer)
            .field("leeway", &self.leeway)
            .field("fetch_timeout", &self.fetch_timeout)
            .field("cache_ttl", &self.cache.ttl())
            .field("cache_capacity", &self.cache.capacity())
            .field("max_concurrent_calls", &self.max_calls)
            .finish_non_exhaustive()
    }
}

/// The members of an introspection answer the verifier reads.
#[derive(Deserialize)]
struct Introspection {
    active: bool,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    exp: Option<u64>,
    #[serde(default)]
    nbf: Option<u64>,
    #[serde(default)]
    aud: Option<Value>,
    #[serde(default)]
    iss: Option<String>,
}

impl IntrospectionVerifier {
    /// A verifier of tokens for `resource`, asking `endpoint` (the
    /// authorization server's introspection endpoint), without client
    /// credentials.
    pub fn new(resource: &ProtectedResource, endpoint: impl Into<String>) -> Self {
        Self {
            endpoint: endpoint.into(),
            credentials: None,
            audience: Some(resource.resource().to_owned()),
            issuer: resource
                .authorization_servers()
                .first()
                .cloned()
                .unwrap_or_default(),
            leeway: LEEWAY,
            fetch_timeout: FETCH_TIMEOUT,
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap_or_default(),
            cache: AnswerCache::off(CACHE_CAPACITY),
            calls: Semaphore::new(MAX_CONCURRENT_CALLS),
            max_calls: MAX_CONCURRENT_CALLS,
        }
    }

    /// Authenticates to the endpoint with HTTP Basic client credentials.
    pub fn client_credentials(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.credentials = Some((client_id.into(), client_secret.into()));
        self
    }

    /// The clock leeway for `exp` and `nbf` of the introspection answer
    /// (default 30 s). Counted in whole seconds; a fraction is dropped.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The bound on one verification's introspection: waiting for a free
    /// call (see [`max_concurrent_calls`](Self::max_concurrent_calls)),
    /// connecting, and reading the answer to its last byte (default 5 s);
    /// past it the token is neither accepted nor refused
    /// ([`TokenError::Unavailable`], 503).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }

    /// The most introspection calls that run at once (default 32, at least
    /// 1). A verification that finds them all running waits for one to
    /// finish within [`fetch_timeout`](Self::fetch_timeout), then is
    /// [`TokenError::Unavailable`] (503, "retry later"): a slow or hanging
    /// authorization server cannot gather an unbounded number of calls,
    /// nor hold a request past the timeout.
    pub fn max_concurrent_calls(mut self, max: usize) -> Self {
        let max = max.max(1);
        self.calls = Semaphore::new(max);
        self.max_calls = max;
        self
    }

    /// How long an introspection answer may be reused for the same token
    /// (default zero: **off**, every request asks). Answers are kept by the
    /// SHA-256 digest of the token, never the token itself; an active
    /// answer is kept no longer than the token's own `exp`, and an answer
    /// that refuses the token (`active: false`, a 4xx, another audience or
    /// issuer) for the TTL, so a junk token repeated within it costs one
    /// call. Answers that decide nothing (no answer, a 5xx) are never kept.
    ///
    /// The trade-off is revocation: a token revoked at the authorization
    /// server is still accepted for up to this long after an answer said
    /// it was active (RFC 7662, section 4). Keep it to the delay you accept
    /// between a revocation and its effect, such as a few seconds to a
    /// minute; leave it off where a revocation must take effect at once.
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache = AnswerCache::new(ttl, self.cache.capacity());
        self
    }

    /// The most introspection answers kept at once when a
    /// [`cache_ttl`](Self::cache_ttl) is set (default 10,000; zero keeps
    /// none). When full, expired answers are dropped first, then the one
    /// that would expire soonest.
    pub fn cache_capacity(mut self, capacity: usize) -> Self {
        self.cache = AnswerCache::new(self.cache.ttl(), capacity);
        self
    }

    /// **Accepts tokens issued for any audience**, or for none: see
    /// [`JwtVerifier::accept_tokens_for_any_audience_insecure`](super::JwtVerifier::accept_tokens_for_any_audience_insecure).
    pub fn accept_tokens_for_any_audience_insecure(mut self) -> Self {
        self.audience = None;
        self
    }

    /// The answer about `token`, unbounded in time: [`Self::ask`] bounds it.
    async fn introspect(&self, token: &str) -> Result<Introspection, TokenError> {
        let body = format!("token={}&token_type_hint=access_token", form_encode(token));
        let mut request = self
            .http
            .post(&self.endpoint)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(body);
        if let Some((id, secret)) = &self.credentials {
            request = request.basic_auth(id, Some(secret));
        }
        let response = request.send().await.map_err(|e| {
            TokenError::Unavailable(format!("introspection at {}: {e}", self.endpoint))
        })?;
        let status = response.status();
        if status.is_client_error() {
            return Err(TokenError::Invalid(format!(
                "introspection answered HTTP {status}"
            )));
        }
        if !status.is_success() {
            return Err(TokenError::Unavailable(format!(
                "introspection answered HTTP {status}"
            )));
        }
        let bytes = body_within_limit(response).await.map_err(|e| {
            TokenError::Unavailable(format!("introspection at {}: {e}", self.endpoint))
        })?;
        serde_json::from_slice(&bytes).map_err(|e| {
            TokenError::Unavailable(format!(
                "the introspection answer is not RFC 7662 JSON: {e}"
            ))
        })
    }
}

impl IntrospectionVerifier {
    /// What the authorization server says of `token`, within the bound on
    /// calls at once and the fetch timeout, judged by the checks that do
    /// not depend on the time of use.
    async fn ask(&self, token: &str) -> Result<Verdict, TokenError> {
        let bounded = async {
            let _call = self.calls.acquire().await.map_err(|_| {
                TokenError::Unavailable("the introspection calls are closed".to_owned())
            })?;
            self.introspect(token).await
        };
        let answer = match tokio::time::timeout(self.fetch_timeout, bounded).await {
            Ok(Ok(answer)) => answer,
            // A 4xx refuses the token as `active: false` does.
            Ok(Err(TokenError::Invalid(why))) => return Ok(Err(why)),
            Ok(Err(unavailable)) => return Err(unavailable),
            Err(_) => {
                return Err(TokenError::Unavailable(format!(
                    "introspection at {} gave no answer within {:?} (at most {} calls run \
                     at once)",
                    self.endpoint, self.fetch_timeout, self.max_calls
                )));
            }
        };
        Ok(self.judge(answer))
    }

    /// The verdict on `answer`, but for `exp` and `nbf`, which are checked
    /// at each use.
    fn judge(&self, answer: Introspection) -> Verdict {
        if !answer.active {
            return Err("the token is not active".to_owned());
        }
        if let Some(iss) = &answer.iss
            && *iss != self.issuer
        {
            return Err(format!("the token was issued by {iss:?}"));
        }
        if let Some(audience) = &self.audience
            && !names(answer.aud.as_ref(), audience)
        {
            return Err("the token was not issued for this resource".to_owned());
        }
        let subject = match (answer.sub, &answer.client_id) {
            (Some(sub), _) => sub,
            (None, Some(client)) => format!("client:{client}"),
            (None, None) => {
                return Err(
                    "the introspection answer names neither a subject nor a client".to_owned(),
                );
            }
        };
        Ok(Active {
            caller: Caller {
                subject,
                client_id: answer.client_id,
                scopes: answer
                    .scope
                    .as_deref()
                    .map(parse_scopes)
                    .unwrap_or_default(),
            },
            exp: answer.exp,
            nbf: answer.nbf,
        })
    }

    /// The caller of a token with `verdict`, checked against the clock
    /// `now` (seconds since the Unix epoch).
    fn admit(&self, verdict: Verdict, now: u64) -> Result<Caller, TokenError> {
        let active = verdict.map_err(TokenError::Invalid)?;
        let leeway = self.leeway.as_secs();
        if active
            .exp
            .is_some_and(|exp| exp.saturating_add(leeway) < now)
        {
            return Err(TokenError::Invalid("the token has expired".to_owned()));
        }
        if active
            .nbf
            .is_some_and(|nbf| nbf > now.saturating_add(leeway))
        {
            return Err(TokenError::Invalid("the token is not valid yet".to_owned()));
        }
        Ok(active.caller)
    }
}

/// How long `verdict` may be kept, from `now` (seconds since the Unix
/// epoch): an active token's answer no longer than its `exp`, a refusal
/// as long as the cache allows.
fn lifetime(verdict: &Verdict, now: u64) -> Duration {
    match verdict {
        Ok(Active { exp: Some(exp), .. }) => Duration::from_secs(exp.saturating_sub(now)),
        Ok(Active { exp: None, .. }) | Err(_) => Duration::MAX,
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, TokenError>> {
        Box::pin(async move {
            let key = self.cache.is_on().then(|| digest(token));
            let kept = key.and_then(|key| self.cache.get(&key, Instant::now()));
            let verdict = match kept {
                Some(verdict) => verdict,
                None => {
                    let verdict = self.ask(token).await?;
                    if let Some(key) = key {
                        let lifetime = lifetime(&verdict, unix_now());
                        self.cache
                            .put(key, verdict.clone(), Instant::now(), lifetime);
                    }
                    verdict
                }
            };
            self.admit(verdict, unix_now())
        })
    }
}

/// Seconds since the Unix epoch (0 if the clock is before it).
fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Whether an `aud` (a string or an array of strings) names `audience`.
fn names(aud: Option<&Value>, audience: &str) -> bool {
    match aud {
        Some(Value::String(one)) => one == audience,
        Some(Value::Array(many)) => many.iter().any(|a| a.as_str() == Some(audience)),
        _ => false,
    }
}

/// `value` for an `application/x-www-form-urlencoded` body.
fn form_encode(value: &str) -> String {
    use std::fmt::Write as _;
    value
        .bytes()
        .fold(String::with_capacity(value.len()), |mut out, b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                out.push(char::from(b));
            } else {
                let _ = write!(out, "%{b:02X}");
            }
            out
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn audiences_are_matched_exactly() {
        let me = "http://127.0.0.1:8080/mcp";
        assert!(names(Some(&json!(me)), me));
        assert!(names(Some(&json!(["x", me])), me));
        assert!(!names(Some(&json!("http://127.0.0.1:8080/mcp/")), me));
        assert!(!names(Some(&json!(["x"])), me));
        assert!(!names(None, me));
        assert!(!names(Some(&json!(7)), me));
    }

    #[test]
    fn tokens_are_form_encoded() {
        assert_eq!(form_encode("a.b-c_d~e"), "a.b-c_d~e");
        assert_eq!(form_encode("a+b/c=&"), "a%2Bb%2Fc%3D%26");
    }
}
