//! Opaque access tokens checked by asking the authorization server
//! (OAuth 2.0 Token Introspection, RFC 7662).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Deserialize;
use serde_json::Value;

use super::Caller;
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

    /// The bound on one introspection request, from connecting to the last
    /// byte of the answer (default 5 s); past it the token is neither
    /// accepted nor refused ([`TokenError::Unavailable`], 503).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }

    /// **Accepts tokens issued for any audience**, or for none: see
    /// [`JwtVerifier::accept_tokens_for_any_audience_insecure`](super::JwtVerifier::accept_tokens_for_any_audience_insecure).
    pub fn accept_tokens_for_any_audience_insecure(mut self) -> Self {
        self.audience = None;
        self
    }

    async fn introspect(&self, token: &str) -> Result<Introspection, TokenError> {
        let body = format!("token={}&token_type_hint=access_token", form_encode(token));
        let mut request = self
            .http
            .post(&self.endpoint)
            .timeout(self.fetch_timeout)
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

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, TokenError>> {
        Box::pin(async move {
            let answer = self.introspect(token).await?;
            if !answer.active {
                return Err(TokenError::Invalid("the token is not active".to_owned()));
            }
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let leeway = self.leeway.as_secs();
            if answer
                .exp
                .is_some_and(|exp| exp.saturating_add(leeway) < now)
            {
                return Err(TokenError::Invalid("the token has expired".to_owned()));
            }
            if answer
                .nbf
                .is_some_and(|nbf| nbf > now.saturating_add(leeway))
            {
                return Err(TokenError::Invalid("the token is not valid yet".to_owned()));
            }
            if let Some(iss) = &answer.iss
                && *iss != self.issuer
            {
                return Err(TokenError::Invalid(format!(
                    "the token was issued by {iss:?}"
                )));
            }
            if let Some(audience) = &self.audience
                && !names(answer.aud.as_ref(), audience)
            {
                return Err(TokenError::Invalid(
                    "the token was not issued for this resource".to_owned(),
                ));
            }
            let subject = match (answer.sub, &answer.client_id) {
                (Some(sub), _) => sub,
                (None, Some(client)) => format!("client:{client}"),
                (None, None) => {
                    return Err(TokenError::Invalid(
                        "the introspection answer names neither a subject nor a client".to_owned(),
                    ));
                }
            };
            Ok(Caller {
                subject,
                client_id: answer.client_id,
                scopes: answer
                    .scope
                    .as_deref()
                    .map(parse_scopes)
                    .unwrap_or_default(),
            })
        })
    }
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
