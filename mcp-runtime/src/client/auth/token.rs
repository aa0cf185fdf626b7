//! The token endpoint: authorization code, refresh and client credentials
//! grants, with the client authenticated as the server supports
//! (`client_secret_basic`, `client_secret_post`, `none`, or
//! `private_key_jwt` by RFC 7523).

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde::Deserialize;

use super::discovery::AuthServer;
use super::store::Registration;
use super::{AuthError, Secret, fetch, pkce};

/// `client_assertion_type` of RFC 7523.
const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// A signing key for `private_key_jwt`.
#[derive(Clone)]
pub(crate) struct SigningKey {
    key: jsonwebtoken::EncodingKey,
    algorithm: jsonwebtoken::Algorithm,
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// Reads a PEM private key for `algorithm` (`ES256`, `ES384`: a PKCS#8
    /// EC key; `RS256`, `RS384`, `RS512`, `PS256`..: a PKCS#1 RSA key;
    /// `EdDSA`: a PKCS#8 Ed25519 key).
    pub(crate) fn from_pem(pem: &str, algorithm: &str) -> Result<Self, AuthError> {
        use jsonwebtoken::{Algorithm, EncodingKey};
        let algorithm: Algorithm = algorithm
            .parse()
            .map_err(|_| AuthError::Config(format!("unknown signing algorithm {algorithm:?}")))?;
        let der = pem_body(pem)?;
        let key = match algorithm {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_der(&der),
            Algorithm::EdDSA => EncodingKey::from_ed_der(&der),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => EncodingKey::from_rsa_der(&der),
            other => {
                return Err(AuthError::Config(format!(
                    "{other:?} is not an algorithm for a private key"
                )));
            }
        };
        Ok(Self { key, algorithm })
    }

    /// A client assertion for `client_id` at the server `audience`.
    fn assertion(&self, client_id: &str, audience: &str) -> Result<String, AuthError> {
        let now = now();
        let claims = serde_json::json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + 300,
            "jti": pkce::random_token()?,
        });
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(self.algorithm),
            &claims,
            &self.key,
        )
        .map_err(|e| AuthError::Config(format!("cannot sign the client assertion: {e}")))
    }
}

/// The DER inside a PEM block.
fn pem_body(pem: &str) -> Result<Vec<u8>, AuthError> {
    let body: String = pem
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with("-----") && !line.is_empty())
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .map_err(|_| AuthError::Config("the private key is not PEM".into()))
}

/// How the client proves itself at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    None,
    Basic,
    Post,
    PrivateKeyJwt,
}

impl Method {
    /// The method for `registration` at `server`: `private_key_jwt` with a
    /// key; with a secret, the one registration gave if it is basic or
    /// post, else basic when the server supports it, else post; without a
    /// secret, `none`.
    pub(crate) fn choose(registration: &Registration, server: &AuthServer, key: bool) -> Self {
        if key {
            return Self::PrivateKeyJwt;
        }
        if registration.client_secret.is_none() {
            return Self::None;
        }
        match registration.token_endpoint_auth_method.as_deref() {
            Some("client_secret_basic") => return Self::Basic,
            Some("client_secret_post") => return Self::Post,
            _ => {}
        }
        let supported = server.auth_methods();
        if supported.iter().any(|m| m == "client_secret_basic") {
            Self::Basic
        } else if supported.iter().any(|m| m == "client_secret_post") {
            Self::Post
        } else {
            Self::Basic
        }
    }
}

/// What the token endpoint gave.
#[derive(Debug, Deserialize)]
pub(crate) struct TokenAnswer {
    pub(crate) access_token: Secret,
    #[serde(default)]
    pub(crate) refresh_token: Option<Secret>,
    #[serde(default)]
    pub(crate) expires_in: Option<u64>,
    #[serde(default)]
    pub(crate) scope: Option<String>,
}

/// Asks the token endpoint of `server` for tokens with `params` (the
/// grant's), authenticating `registration` by `method`.
pub(crate) async fn request(
    http: &reqwest::Client,
    server: &AuthServer,
    registration: &Registration,
    method: Method,
    key: Option<&SigningKey>,
    mut params: Vec<(&'static str, String)>,
) -> Result<TokenAnswer, AuthError> {
    let mut request = http
        .post(&server.token_endpoint)
        .header("accept", "application/json");
    let secret = registration
        .client_secret
        .as_ref()
        .map(|s| s.expose().to_owned())
        .unwrap_or_default();
    match method {
        Method::None => params.push(("client_id", registration.client_id.clone())),
        Method::Basic => {
            let pair = format!(
                "{}:{}",
                form_encode(&registration.client_id),
                form_encode(&secret)
            );
            let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
            request = request.header("authorization", format!("Basic {encoded}"));
        }
        Method::Post => {
            params.push(("client_id", registration.client_id.clone()));
            params.push(("client_secret", secret));
        }
        Method::PrivateKeyJwt => {
            let key =
                key.ok_or_else(|| AuthError::Config("private_key_jwt without a key".into()))?;
            params.push(("client_id", registration.client_id.clone()));
            params.push(("client_assertion_type", JWT_BEARER.to_owned()));
            params.push((
                "client_assertion",
                key.assertion(&registration.client_id, &server.issuer)?,
            ));
        }
    }
    let answer = fetch::send(request.form(&params), &server.token_endpoint).await?;
    if !(200..300).contains(&answer.status) {
        return Err(AuthError::TokenRejected {
            status: answer.status,
            error: answer.error_code().unwrap_or("unknown").to_owned(),
            description: answer
                .body
                .get("error_description")
                .and_then(serde_json::Value::as_str)
                .map(|d| d.chars().take(300).collect())
                .unwrap_or_default(),
        });
    }
    serde_json::from_value(answer.body).map_err(|e| AuthError::TokenRejected {
        status: answer.status,
        error: "malformed_answer".into(),
        description: format!("the token answer is not a token response: {e}"),
    })
}

/// Percent-encodes all but the unreserved characters (RFC 6749 §2.3.1
/// asks the Basic credentials to be form-encoded first).
fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(methods: Option<&[&str]>) -> AuthServer {
        serde_json::from_value(serde_json::json!({
            "issuer": "http://as",
            "token_endpoint": "http://as/token",
            "token_endpoint_auth_methods_supported": methods,
        }))
        .unwrap()
    }

    #[test]
    fn method_follows_the_server() {
        let mut reg = Registration::new("http://as", "id");
        assert_eq!(Method::choose(&reg, &server(None), false), Method::None);
        reg.client_secret = Some(Secret::new("s"));
        assert_eq!(Method::choose(&reg, &server(None), false), Method::Basic);
        assert_eq!(
            Method::choose(&reg, &server(Some(&["client_secret_post"])), false),
            Method::Post
        );
        reg.token_endpoint_auth_method = Some("client_secret_post".into());
        assert_eq!(
            Method::choose(
                &reg,
                &server(Some(&["client_secret_basic", "client_secret_post"])),
                false
            ),
            Method::Post
        );
        assert_eq!(
            Method::choose(&reg, &server(None), true),
            Method::PrivateKeyJwt
        );
    }

    #[test]
    fn basic_credentials_are_form_encoded() {
        assert_eq!(form_encode("a b:c"), "a%20b%3Ac");
        assert_eq!(form_encode("plain-id_1.~"), "plain-id_1.~");
    }
}
